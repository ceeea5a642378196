package mail_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// adminGraphQL runs a GraphQL query with a token (the admin's, or a
// fixture key by name) and returns its answer.
func adminGraphQL(api *liveEmail, key, query string) *resttest.Response {
	token := "admin-token"
	if key != "admin" {
		token = api.Key(key)
	}
	return api.Do("POST", "/graphql", "", map[string]any{"query": query},
		"Authorization", "Bearer "+token, "Msgsvc-Workspace", "ws_main")
}

// errorCode is the code of a GraphQL answer's first error ("" without).
func errorCode(r *resttest.Response) string {
	errs, _ := r.Body["errors"].([]any)
	if len(errs) == 0 {
		return ""
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	code, _ := ext["code"].(string)
	return code
}

// failMail stores a mail and fails it n times, as the processor does.
func failMail(t *testing.T, api *liveEmail, m *repo.InboundMail, n int) {
	t.Helper()
	if err := api.Store.InsertInboundMail(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	for range n {
		if _, err := api.Store.FailInboundMail(t.Context(), m.ID, "mail: "+m.ID+": processing panicked: a poison mail"); err != nil {
			t.Fatal(err)
		}
	}
}

// Mails given up after MaxMailAttempts failures are listed for the admin
// (newest first, with their envelope, size and last error, never their
// content); a mail still retried, or processed, is not. retryInboundMail
// takes a given-up mail only, and the sweep then processes it.
func TestFailedInboundMailsListedAndRetried(t *testing.T) {
	api := newLiveEmail(t)
	ctx := t.Context()
	received := api.Clock.Now()
	raw := []byte("From: ada@example.com\r\nTo: support@verified.test\r\nSubject: private subject\r\n\r\nprivate body\r\n")
	mailTo := func(id, rcpt string, after time.Duration) *repo.InboundMail {
		return &repo.InboundMail{ID: id, MailFrom: "ada@example.com", Recipients: []string{rcpt}, Raw: raw, ReceivedAt: received.Add(after)}
	}
	failMail(t, api, mailTo("im_given", "support@verified.test", 0), mail.MaxMailAttempts)
	failMail(t, api, mailTo("im_stranger", "gone@verified.test", time.Millisecond), mail.MaxMailAttempts)
	failMail(t, api, mailTo("im_retrying", "support@verified.test", 2*time.Millisecond), mail.MaxMailAttempts-1)
	failMail(t, api, mailTo("im_done", "support@verified.test", 3*time.Millisecond), mail.MaxMailAttempts-1)
	if err := api.Store.FinishInboundMail(ctx, "im_done", received, nil); err != nil {
		t.Fatal(err)
	}
	const fields = `{ id mailFrom recipients workspaceIds size receivedAt attempts lastError }`
	listed := func(limit string) []any {
		t.Helper()
		r := adminGraphQL(api, "admin", `{ failedInboundMails`+limit+` `+fields+` }`)
		if r.Status != 200 || r.Body["errors"] != nil {
			t.Fatalf("failedInboundMails: %d %v", r.Status, r.Body)
		}
		if b, _ := json.Marshal(r.Body); strings.Contains(string(b), "private") {
			t.Fatalf("the mail's content is shown: %s", b)
		}
		items, _ := r.Data()["failedInboundMails"].([]any)
		return items
	}
	items := listed("")
	if len(items) != 2 || items[0].(map[string]any)["id"] != "im_stranger" {
		t.Fatalf("want the two given-up mails, newest first: %v", items)
	}
	got := items[1].(map[string]any)
	if got["id"] != "im_given" || got["mailFrom"] != "ada@example.com" || len(got["recipients"].([]any)) != 1 ||
		got["recipients"].([]any)[0] != "support@verified.test" || len(got["workspaceIds"].([]any)) != 1 ||
		got["workspaceIds"].([]any)[0] != "ws_main" || got["size"] != float64(len(raw)) || got["receivedAt"] == nil ||
		got["attempts"] != float64(mail.MaxMailAttempts) || !strings.Contains(got["lastError"].(string), "panicked: a poison mail") {
		t.Fatalf("given up: %v", got)
	}
	if ws := items[0].(map[string]any)["workspaceIds"].([]any); len(ws) != 0 {
		t.Fatalf("a mail to no account's address routes to %v", ws)
	}
	if items := listed("(limit: 1)"); len(items) != 1 || items[0].(map[string]any)["id"] != "im_stranger" {
		t.Fatalf("limit 1: %v", items)
	}
	for _, q := range []string{`{ failedInboundMails(limit: 0) { id } }`, `{ failedInboundMails(limit: 101) { id } }`} {
		if r := adminGraphQL(api, "admin", q); errorCode(r) != "invalid_request" {
			t.Fatalf("%s: %v", q, r.Body)
		}
	}
	for _, id := range []string{"im_retrying", "im_done", "im_nope"} {
		if r := adminGraphQL(api, "admin", `mutation { retryInboundMail(id: "`+id+`") { id } }`); errorCode(r) != "invalid_request" {
			t.Fatalf("retrying %s, not given up: %v", id, r.Body)
		}
	}
	if r := adminGraphQL(api, "live_all", `{ failedInboundMails { id } }`); r.Status != 401 {
		t.Fatalf("/graphql with a workspace key: %d %v", r.Status, r.Body)
	}
	// Resolved for another caller than the admin (a workspace's key).
	key := auth.WithActor(ctx, &auth.Actor{WorkspaceID: "ws_main", Livemode: true, Scopes: []string{"*"}})
	_, listErr := api.Resolver.Query().FailedInboundMails(key, nil)
	_, retryErr := api.Resolver.Mutation().RetryInboundMail(key, "im_given")
	for _, err := range []error{listErr, retryErr} {
		if e, ok := apierr.As(err); !ok || e.Code != apierr.InsufficientScope {
			t.Fatalf("a workspace's key: %v", err)
		}
	}

	r := adminGraphQL(api, "admin", `mutation { retryInboundMail(id: "im_given") `+fields+` }`)
	retried, _ := r.Data()["retryInboundMail"].(map[string]any)
	if r.Body["errors"] != nil || retried["id"] != "im_given" || retried["attempts"] != float64(0) || retried["lastError"] == "" {
		t.Fatalf("retryInboundMail: %v", r.Body)
	}
	api.Clock.Set(received.Add(6 * time.Second))
	if err := api.Resolver.Mail.Sweep(ctx, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Store.LockInboundMail(ctx, "im_given"); err != repo.ErrNotFound {
		t.Fatalf("the retried mail is not processed: %v", err)
	}
	conversationOf(t, api, "ada@example.com")
	if items := listed(""); len(items) != 1 || items[0].(map[string]any)["id"] != "im_stranger" {
		t.Fatalf("after the retry: %v", items)
	}

	// A bounce routes to the workspace of the message its address names.
	var msgID string
	if err := api.Store.DB.GetContext(ctx, &msgID, `SELECT id FROM messages WHERE workspace_id = 'ws_main' LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	failMail(t, api, mailTo("im_bounce", "bounces+"+msgID+"@verified.test", time.Second), mail.MaxMailAttempts)
	bounce := listed("(limit: 1)")[0].(map[string]any)
	if ws := bounce["workspaceIds"].([]any); bounce["id"] != "im_bounce" || len(ws) != 1 || ws[0] != "ws_main" {
		t.Fatalf("a given-up bounce: %v", bounce)
	}
}

// TestRetriedMailBacksOffFromItsRetry: a mail put back by an operator
// backs off from then, not from when it was received a day before: after
// one more failure its next try is RetryAfter·2 after the retry.
func TestRetriedMailBacksOffFromItsRetry(t *testing.T) {
	api := newLiveEmail(t)
	ctx := t.Context()
	received := api.Clock.Now()
	failMail(t, api, &repo.InboundMail{ID: "im_back", MailFrom: "ada@example.com", Recipients: []string{"support@verified.test"},
		Raw: []byte("From: ada@example.com\r\n\r\nhi\r\n"), ReceivedAt: received}, mail.MaxMailAttempts)
	retried := received.Add(30 * time.Hour)
	if _, err := api.Store.RetryInboundMail(ctx, "im_back", mail.MaxMailAttempts, retried); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Store.FailInboundMail(ctx, "im_back", "failed again"); err != nil {
		t.Fatal(err)
	}
	due := retried.Add(2 * mail.RetryAfter)
	for at, want := range map[time.Time]int{due.Add(-time.Millisecond): 0, due: 1} {
		ids, err := api.Store.PendingInboundMails(ctx, at, at, mail.RetryAfter, mail.MaxMailAttempts, 10)
		if err != nil || len(ids) != want {
			t.Errorf("pending at retry+%v: %v %v, want %d", at.Sub(retried), ids, err, want)
		}
	}
	m, err := api.Store.LockInboundMail(ctx, "im_back")
	if err != nil || m.RetryFrom == nil || !m.RetryFrom.Equal(retried) {
		t.Fatalf("retry_from: %+v %v", m, err)
	}
}
