package repo_test

import (
	"errors"
	"testing"

	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

// A reply's references find a conversation only for a participant: its
// contact, or an address in From, To or Cc of one of its mails, in any
// case, unless that address is one of the workspace's own accounts'.
func TestThreadByReferencesOnlyForParticipants(t *testing.T) {
	store := repotest.NewStore(t)
	s := repo.Scope{WorkspaceID: "ws_1", Livemode: true}
	conv := repotest.Conversation("ws_1", "conv_1", "email", true)
	contact := "ct_dan"
	out := repotest.Message(conv, "msg_out", "outbound", "sent", "")
	out.Email = repo.JSONB(`{"from": "support@acme.test", "to": ["dan@example.com"], "cc": ["Eve@Example.com"]}`)
	in := repotest.Message(conv, "msg_in", "inbound", "received", "")
	in.Email = repo.JSONB(`{"from": "dan@example.com", "to": ["support@acme.test"], "cc": ["frank@example.com"]}`)
	repotest.Thread(t, store, conv, out, in)
	if _, err := store.DB.Exec(`INSERT INTO channel_accounts (id, workspace_id, channel, website_id, address)
		VALUES ('acc_mail', 'ws_1', 'email', 'web_1', 'Support@acme.test');
		INSERT INTO contacts (id, workspace_id, livemode, email, created_at, updated_at)
		VALUES ('ct_dan', 'ws_1', true, 'dan@example.com', now(), now());
		UPDATE conversations SET contact_id = 'ct_dan' WHERE id = 'conv_1'`); err != nil {
		t.Fatal(err)
	}
	thread := func(sender, contactID string) (id string, err error) {
		txErr := store.InTx(t.Context(), func(q repo.Queries) error {
			id, err = q.ThreadByReferences(t.Context(), s, nil, []string{"msg_out"}, sender, contactID)
			return nil
		})
		return id, errors.Join(err, txErr)
	}
	for sender, want := range map[string]bool{
		"eve@example.com":     true,  // in Cc of our mail
		"frank@example.com":   true,  // in Cc of the customer's
		"dan@example.com":     true,  // in From of the customer's
		"mallory@example.com": false, // a stranger
		"support@acme.test":   false, // our own address, forged
	} {
		id, err := thread(sender, "ct_other")
		if got := err == nil && id == "conv_1"; got != want || err != nil && !errors.Is(err, repo.ErrNotFound) {
			t.Errorf("%s: %q %v, want joined %v", sender, id, err, want)
		}
	}
	// The conversation's contact, whatever address it writes from.
	if id, err := thread("dan@elsewhere.example", contact); err != nil || id != "conv_1" {
		t.Errorf("the contact: %q %v", id, err)
	}
}
