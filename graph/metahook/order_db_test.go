package metahook

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/repo"
)

// crashingStore is the database of a process that dies once after the
// messages of one hook are stored, before the hook is marked processed.
type crashingStore struct {
	Store
	hook string
	once sync.Once
}

// errCrash is the panic of crashingStore.
var errCrash = fmt.Errorf("the process died")

func (c *crashingStore) FinishProviderHook(ctx context.Context, id string, at time.Time, lastErr string) error {
	if id == c.hook {
		c.once.Do(func() { panic(errCrash) })
	}
	return c.Store.FinishProviderHook(ctx, id, at, lastErr)
}

// orderedNumber is a service over a database with the connected number
// wa_1 (phone_number_id 106) of ws_1, the inbound path and a clock the
// test moves.
func orderedNumber(t *testing.T) (*repo.Store, *Service, *time.Time) {
	t.Helper()
	store, s := whatsAppThread(t, "sent", "")
	vault := testVault(t)
	now := time.Date(2026, 3, 4, 6, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	row, err := vault.Seal("ws_1", "wa_1", "whatsapp", channels.Credentials{AccessToken: "tok", PhoneNumberID: "106", WABAID: "107"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.UpsertAccountProvider(t.Context(), row); err != nil {
		t.Fatal(err)
	}
	s.Clock, s.Vault, s.Events = clock, vault, event.Recorder{Clock: clock}
	s.Inbound = &inbound.Service{Store: store, Clock: clock, Events: event.Recorder{Clock: clock}}
	return store, s, &now
}

// customerHook is a hook of one text message of customer +15550007001 to
// number 106, sent at Meta timestamp at.
func customerHook(wamid string, at int64, text string) []byte {
	return fmt.Appendf(nil, `{"object":"whatsapp_business_account","entry":[{"id":"107","changes":[{"field":"messages","value":{
		"messaging_product":"whatsapp","metadata":{"phone_number_id":"106"},
		"contacts":[{"wa_id":"15550007001","profile":{"name":"Ana"}}],
		"messages":[{"from":"15550007001","id":%q,"timestamp":"%d","type":"text","text":{"body":%q}}]}}]}]}`, wamid, at, text)
}

// Two pending hooks of one customer that arrived in the reverse of the
// order the customer sent them (Meta redelivering an earlier message after
// a later one) are processed in the order sent, whichever job runs first:
// messages stored and message.received recorded earlier first. Also when
// the process died after storing the earlier message, before marking its
// hook processed: the job run again stores nothing twice.
func TestPendingHooksAreProcessedInTheOrderSent(t *testing.T) {
	for _, crash := range []bool{false, true} {
		t.Run(fmt.Sprintf("crash=%v", crash), func(t *testing.T) {
			store, s, now := orderedNumber(t)
			later, err := s.Accept(t.Context(), customerHook("wamid.LATER", 1772600000, "later"))
			if err != nil {
				t.Fatal(err)
			}
			*now = now.Add(time.Minute)
			earlier, err := s.Accept(t.Context(), customerHook("wamid.EARLIER", 1772599990, "earlier"))
			if err != nil {
				t.Fatal(err)
			}
			if crash {
				s.Store = &crashingStore{Store: store, hook: earlier}
				if got := processCrashing(t, s, later); got != errCrash {
					t.Fatalf("the first processing ended with %v, want the crash", got)
				}
				if hookDone(t, store, earlier) || hookDone(t, store, later) {
					t.Fatal("a hook was marked processed before the crash")
				}
			}
			if err := s.Process(t.Context(), later); err != nil {
				t.Fatal(err)
			}
			if !hookDone(t, store, earlier) || !hookDone(t, store, later) {
				t.Fatalf("processed: earlier %v, later %v; want both", hookDone(t, store, earlier), hookDone(t, store, later))
			}
			if err := s.Process(t.Context(), earlier); err != nil {
				t.Fatal(err)
			}
			wantInOrder(t, store, `SELECT text FROM messages WHERE direction = 'inbound' ORDER BY created_at, id`)
			wantInOrder(t, store, `SELECT envelope->'data'->>'text' FROM events WHERE type = 'message.received' ORDER BY seq`)
		})
	}
}

// processCrashing runs Process and returns what it panicked with.
func processCrashing(t *testing.T, s *Service, hookID string) (got any) {
	t.Helper()
	defer func() { got = recover() }()
	if err := s.Process(t.Context(), hookID); err != nil {
		t.Fatal(err)
	}
	return nil
}

// hookDone says whether a stored hook is marked processed.
func hookDone(t *testing.T, store *repo.Store, id string) bool {
	t.Helper()
	h, err := store.ProviderHook(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return h.ProcessedAt != nil
}

// wantInOrder fails the test unless query lists "earlier", "later".
func wantInOrder(t *testing.T, store *repo.Store, query string) {
	t.Helper()
	var got []string
	if err := store.DB.Select(&got, query); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, []string{"earlier", "later"}) {
		t.Errorf("%s: %v, want [earlier later]", query, got)
	}
}
