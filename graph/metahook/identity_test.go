package metahook

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/repo"
)

// storedBefore is an inbound store where every message was received
// already (its wamid rolls the transaction back).
type storedBefore struct{ inbound.Store }

func (storedBefore) InTx(context.Context, func(repo.Queries) error) error { return errDuplicate }

// txCounter counts the transactions metahook opens; it runs none.
type txCounter struct {
	Store
	n int
}

func (f *txCounter) InTx(context.Context, func(repo.Queries) error) error { f.n++; return nil }

// A user_changed_number received before (its hook retried after the
// message was stored, but before the number moved) still moves the number.
func TestARetriedNumberChangeStillMovesTheNumber(t *testing.T) {
	store := &txCounter{}
	now := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	s := &Service{Store: store, Clock: func() time.Time { return now },
		Inbound: &inbound.Service{Store: storedBefore{}, Clock: func() time.Time { return now }}}
	m := &meta.WhatsAppMessage{WhatsAppRoute: meta.WhatsAppRoute{PhoneNumberID: "106"}, ID: "wamid.sys", From: "15550001111",
		Type: "system", System: &meta.WhatsAppSystem{Type: "user_changed_number", NewWAID: "15550002222", Body: "changed"}}
	if err := s.message(t.Context(), target{acc: &repo.Account{ID: "wa_1", WorkspaceID: "ws_1"}}, m); err != nil {
		t.Fatal(err)
	}
	if store.n != 1 {
		t.Errorf("%d transactions moving the number; want 1", store.n)
	}
}
