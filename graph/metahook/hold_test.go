package metahook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/repo"
)

// failingAccountStore holds one hook and one connected number whose account
// cannot be read; it counts the events that got as far as reading it.
type failingAccountStore struct {
	Store
	// works reads the account.
	works    bool
	hook     *repo.ProviderHook
	row      repo.AccountProvider
	attempts int
	finished string
	givenUp  string
}

func (f *failingAccountStore) AccountProvidersByKey(context.Context, string, string) ([]repo.AccountProvider, error) {
	return []repo.AccountProvider{f.row}, nil
}

func (f *failingAccountStore) Account(context.Context, string, string, string) (*repo.Account, error) {
	f.attempts++
	if f.works {
		return &repo.Account{ID: "wa_1", WorkspaceID: "ws_1", Channel: "whatsapp"}, nil
	}
	return nil, errors.New("the database blinked")
}

func (f *failingAccountStore) FinishProviderHook(_ context.Context, _ string, _ time.Time, lastErr string) error {
	f.finished = lastErr
	return nil
}

func (f *failingAccountStore) GiveUpProviderHook(_ context.Context, _ string, _ time.Time, lastErr string) error {
	f.givenUp = lastErr
	return nil
}

// InTx finds no stored message (a status's wamid is unknown); a send of
// the number is still sending, so such a status is early.
func (f *failingAccountStore) InTx(context.Context, func(repo.Queries) error) error { return nil }
func (f *failingAccountStore) WhatsAppSending(context.Context, string) (bool, error) {
	return true, nil
}

// When a customer's message fails, the customer's later messages of the
// same hook are left for the hook's retry (stored after it), while other
// customers' are processed.
func TestAFailedEventHoldsItsCustomersLaterEvents(t *testing.T) {
	s, store := numberHook(t, "15550001", "15550001", "15550002")
	if err := s.processHook(t.Context(), store.hook); err == nil || store.finished == "" {
		t.Fatalf("processHook = %v (last error %q); want the hook failed, to be retried", err, store.finished)
	}
	if store.attempts != 2 {
		t.Errorf("%d events processed; want 2 (the first customer's first, the second customer's), the first customer's second held", store.attempts)
	}
}

// numberHook is a service whose store holds a hook of text messages from
// the customers to number 106, of one connected account.
func numberHook(t *testing.T, customers ...string) (*Service, *failingAccountStore) {
	t.Helper()
	vault := testVault(t)
	row, err := vault.Seal("ws_1", "wa_1", "whatsapp", channels.Credentials{AccessToken: "tok", PhoneNumberID: "106", WABAID: "107"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	var messages []string
	for i, from := range customers {
		messages = append(messages, `{"from":"`+from+`","id":"wamid.`+strconv.Itoa(i)+`","timestamp":"1760000000","type":"text","text":{"body":"hi"}}`)
	}
	payload := `{"object":"whatsapp_business_account","entry":[{"id":"107","changes":[{"field":"messages","value":{
		"messaging_product":"whatsapp","metadata":{"phone_number_id":"106"},"messages":[` + strings.Join(messages, ",") + `]}}]}]}`
	store := &failingAccountStore{hook: &repo.ProviderHook{ID: "hook_1", Payload: []byte(payload)}, row: *row}
	now := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	return &Service{Store: store, Vault: vault, Clock: func() time.Time { return now }}, store
}

// An event whose processing panics fails its hook like any failure (the
// attempt is counted, so the hook is given up in the end) and does not
// take the process down: the sweep runs hooks outside the job runner.
func TestAPanickingEventFailsItsHook(t *testing.T) {
	s, store := numberHook(t, "15550001")
	store.works = true // and no inbound service: taking the message in panics
	err := s.processHook(t.Context(), store.hook)
	if err == nil || !strings.Contains(err.Error(), "panicked") || !strings.Contains(store.finished, "panicked") {
		t.Fatalf("processHook = %v (last error %q); want the hook failed by the panic", err, store.finished)
	}
}

// A hook whose early status comes with another failure is a failed hook:
// given up after MaxHookAttempts (an early status alone never is), and
// not skipped as early by its customer's later hooks.
func TestAnEarlyStatusDoesNotExcuseAnotherFailure(t *testing.T) {
	early := fmt.Errorf("wrapped: %w", ErrStatusEarly)
	if !onlyEarly(errors.Join(ErrStatusEarly, errors.Join(early))) || onlyEarly(errors.Join(ErrStatusEarly, errors.New("the database blinked"))) {
		t.Fatal("onlyEarly misjudges joined failures")
	}
	s, store := numberHook(t, "15550001")
	store.hook.Payload = bytes.Replace(store.hook.Payload, []byte(`"messages":[`),
		[]byte(`"statuses":[{"id":"wamid.ours","recipient_id":"15550002","status":"delivered","timestamp":"1760000000"}],"messages":[`), 1)
	store.hook.Attempts = MaxHookAttempts - 1
	err := s.processHook(t.Context(), store.hook)
	if err != nil || !strings.Contains(store.givenUp, "blinked") || !strings.Contains(store.givenUp, "before the wamid") || store.finished != "" {
		t.Fatalf("processHook = %v, given up %q, finished %q; want the hook given up with both failures", err, store.givenUp, store.finished)
	}
}
