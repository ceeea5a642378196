package metahook

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/repo"
)

// failingAccountStore holds one hook and one connected number whose account
// cannot be read; it counts the events that got as far as reading it.
type failingAccountStore struct {
	Store
	hook     *repo.ProviderHook
	row      repo.AccountProvider
	attempts int
	finished string
}

func (f *failingAccountStore) AccountProvidersByKey(context.Context, string, string) ([]repo.AccountProvider, error) {
	return []repo.AccountProvider{f.row}, nil
}

func (f *failingAccountStore) Account(context.Context, string, string, string) (*repo.Account, error) {
	f.attempts++
	return nil, errors.New("the database blinked")
}

func (f *failingAccountStore) FinishProviderHook(_ context.Context, _ string, _ time.Time, lastErr string) error {
	f.finished = lastErr
	return nil
}

// When a customer's message fails, the customer's later messages of the
// same hook are left for the hook's retry (stored after it), while other
// customers' are processed.
func TestAFailedEventHoldsItsCustomersLaterEvents(t *testing.T) {
	key, err := seal.New("", "a-test-secret-of-32-characters!!")
	if err != nil {
		t.Fatal(err)
	}
	vault := credentials.Vault{Key: key}
	row, err := vault.Seal("ws_1", "wa_1", "whatsapp", channels.Credentials{AccessToken: "tok", PhoneNumberID: "106", WABAID: "107"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	message := func(from, id string) string {
		return `{"from":"` + from + `","id":"` + id + `","timestamp":"1760000000","type":"text","text":{"body":"hi"}}`
	}
	payload := `{"object":"whatsapp_business_account","entry":[{"id":"107","changes":[{"field":"messages","value":{
		"messaging_product":"whatsapp","metadata":{"phone_number_id":"106"},"messages":[` +
		message("15550001", "wamid.1") + `,` + message("15550001", "wamid.2") + `,` + message("15550002", "wamid.3") + `]}}]}]}`
	store := &failingAccountStore{hook: &repo.ProviderHook{ID: "hook_1", Payload: []byte(payload)}, row: *row}
	now := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	s := &Service{Store: store, Vault: vault, Clock: func() time.Time { return now }}
	if err := s.processHook(t.Context(), store.hook); err == nil || store.finished == "" {
		t.Fatalf("processHook = %v (last error %q); want the hook failed, to be retried", err, store.finished)
	}
	if store.attempts != 2 {
		t.Errorf("%d events processed; want 2 (the first customer's first, the second customer's), the first customer's second held", store.attempts)
	}
}
