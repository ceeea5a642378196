package credentials

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// fakeStore holds accounts and sealed rows of one workspace in memory.
type fakeStore struct {
	accounts map[string]*repo.Account
	rows     map[string]*repo.AccountProvider
	checks   map[string]repo.AccountChecks
}

func (f *fakeStore) Account(_ context.Context, ws, channel, id string) (*repo.Account, error) {
	a, ok := f.accounts[id]
	if !ok || a.WorkspaceID != ws || (channel != "" && a.Channel != channel) {
		return nil, repo.ErrNotFound
	}
	c := *a
	return &c, nil
}

func (f *fakeStore) AccountProvider(_ context.Context, ws, id string) (*repo.AccountProvider, error) {
	p, ok := f.rows[ws+"/"+id]
	if !ok {
		return nil, repo.ErrNotFound
	}
	c := *p
	return &c, nil
}

// UpsertAccountProvider refuses another account's provider id or Page id,
// as repo does.
func (f *fakeStore) UpsertAccountProvider(_ context.Context, p *repo.AccountProvider) error {
	for _, o := range f.rows {
		mine := o.WorkspaceID == p.WorkspaceID && o.AccountID == p.AccountID
		if !mine && o.Channel == p.Channel && (o.ProviderKey == p.ProviderKey || o.PageID != "" && o.PageID == p.PageID) {
			return &repo.ProviderIDTaken{Channel: p.Channel, ID: p.ProviderKey, Workspace: o.WorkspaceID, AccountID: o.AccountID}
		}
	}
	c := *p
	f.rows[p.WorkspaceID+"/"+p.AccountID] = &c
	return nil
}

func (f *fakeStore) DeleteAccountProvider(_ context.Context, ws, id string) (bool, error) {
	_, ok := f.rows[ws+"/"+id]
	delete(f.rows, ws+"/"+id)
	return ok, nil
}

func (f *fakeStore) SetAccountCheck(_ context.Context, ws, id, check string, c repo.AccountCheck) error {
	if f.checks == nil {
		f.checks = map[string]repo.AccountChecks{}
	}
	cs := f.checks[id]
	if check == repo.CheckSubscription {
		cs.Subscription = &c
	} else {
		cs.TemplateSync = &c
	}
	f.checks[id] = cs
	return nil
}

func (f *fakeStore) AccountChecks(context.Context, string) (map[string]repo.AccountChecks, error) {
	return f.checks, nil
}

func (f *fakeStore) ClearNeedsReauth(_ context.Context, ws, id string) (bool, error) {
	a, ok := f.accounts[id]
	if !ok || a.WorkspaceID != ws || a.Status != "needs_reauth" {
		return false, nil
	}
	a.Status = "connected"
	return true, nil
}

type refreshes []string

func (r *refreshes) RefreshTemplates(_ context.Context, ws, id string) error {
	*r = append(*r, ws+"/"+id)
	return nil
}

func connections(t *testing.T) (*Connections, *fakeStore, *refreshes) {
	t.Helper()
	key, err := seal.New("", "a-secret-of-sixteen+")
	if err != nil {
		t.Fatal(err)
	}
	store := &fakeStore{rows: map[string]*repo.AccountProvider{}, accounts: map[string]*repo.Account{
		"wa_main":   {WorkspaceID: "ws_a", ID: "wa_main", Channel: "whatsapp", Status: "needs_reauth"},
		"ig_main":   {WorkspaceID: "ws_a", ID: "ig_main", Channel: "instagram", Status: "connected"},
		"em_main":   {WorkspaceID: "ws_a", ID: "em_main", Channel: "email", Status: "connected"},
		"wa_others": {WorkspaceID: "ws_b", ID: "wa_others", Channel: "whatsapp", Status: "connected"},
	}}
	now := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	var r refreshes
	return &Connections{Store: store, Vault: Vault{Key: key}, Clock: func() time.Time { return now }, Refresher: &r}, store, &r
}

func asAdmin(admin bool) context.Context {
	return auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_a", Scopes: []string{"*"}, Admin: admin})
}

func wantCode(t *testing.T, what string, err error, code apierr.Code) {
	t.Helper()
	if e, ok := apierr.As(err); !ok || e.Code != code {
		t.Errorf("%s: got %v, want %s", what, err, code)
	}
}

func TestConnectSealsAndNeverTellsTheToken(t *testing.T) {
	c, store, synced := connections(t)
	ctx := asAdmin(true)
	in := channels.Credentials{PhoneNumberID: "106540352242922", WABAID: "102290129340398", AccessToken: "EAAGsecret-one"}
	got, err := c.Connect(ctx, "wa_main", in)
	if err != nil {
		t.Fatal(err)
	}
	want := Connection{AccountID: "wa_main", Channel: "whatsapp", Status: "connected", Connected: true,
		ProviderAccountID: "106540352242922", WABAID: "102290129340398", UpdatedAt: c.Clock.Now()}
	if *got != want {
		t.Errorf("connection %+v, want %+v", *got, want)
	}
	if store.accounts["wa_main"].Status != "connected" {
		t.Error("needs_reauth was not cleared by new credentials")
	}
	row := store.rows["ws_a/wa_main"]
	if row == nil || strings.Contains(row.Sealed, "EAAGsecret") || row.ProviderKey != in.PhoneNumberID {
		t.Fatalf("stored row %+v", row)
	}
	if opened, err := c.Vault.Open(row); err != nil || *opened != in {
		t.Errorf("the stored row opens to %+v (%v)", opened, err)
	}
	if len(*synced) != 1 || (*synced)[0] != "ws_a/wa_main" {
		t.Errorf("template syncs queued %v, want one for ws_a/wa_main", *synced)
	}

	// Rotation keeps the ids and changes only the token.
	got, err = c.Rotate(ctx, "wa_main", "EAAGsecret-two")
	if err != nil || got.ProviderAccountID != in.PhoneNumberID || !got.Connected {
		t.Fatalf("rotate: %+v %v", got, err)
	}
	opened, err := c.Vault.Open(store.rows["ws_a/wa_main"])
	if err != nil || opened.AccessToken != "EAAGsecret-two" || opened.WABAID != in.WABAID {
		t.Errorf("after rotation the row opens to %+v (%v)", opened, err)
	}
	if s := fmt.Sprintf("%+v", *got); strings.Contains(s, "EAAGsecret") {
		t.Errorf("a connection tells its token: %s", s)
	}

	// Disconnecting removes the credentials.
	got, err = c.Disconnect(ctx, "wa_main")
	if err != nil || got.Connected || got.ProviderAccountID != "" || store.rows["ws_a/wa_main"] != nil {
		t.Errorf("disconnect: %+v %v, rows %v", got, err, store.rows)
	}
	got, err = c.Get(ctx, "wa_main")
	if err != nil || got.Connected || got.Status != "connected" {
		t.Errorf("get after disconnect: %+v %v", got, err)
	}
}

func TestConnectRefusals(t *testing.T) {
	c, store, synced := connections(t)
	good := channels.Credentials{PhoneNumberID: "106540352242922", WABAID: "102290129340398", AccessToken: "EAAG"}
	_, err := c.Connect(asAdmin(false), "wa_main", good)
	wantCode(t, "an API key", err, apierr.InsufficientScope)
	_, err = c.Get(asAdmin(false), "wa_main")
	wantCode(t, "an API key reading", err, apierr.InsufficientScope)
	_, err = c.Connect(context.Background(), "wa_main", good)
	wantCode(t, "no caller", err, apierr.InvalidAPIKey)

	ctx := asAdmin(true)
	for _, id := range []string{"wa_nope", "em_main", "wa_others"} {
		_, err = c.Connect(ctx, id, good)
		wantCode(t, "account "+id, err, apierr.InvalidRequest)
	}
	for name, bad := range map[string]channels.Credentials{
		"no token":         {PhoneNumberID: "1", WABAID: "2"},
		"spaced token":     {PhoneNumberID: "1", WABAID: "2", AccessToken: "EAAG abc"},
		"line in token":    {PhoneNumberID: "1", WABAID: "2", AccessToken: "EAAG\r\nX-Evil: 1"},
		"long token":       {PhoneNumberID: "1", WABAID: "2", AccessToken: strings.Repeat("a", maxToken+1)},
		"phone with plus":  {PhoneNumberID: "+1555", WABAID: "2", AccessToken: "EAAG"},
		"instagram fields": {PhoneNumberID: "1", WABAID: "2", IGUserID: "3", AccessToken: "EAAG"},
	} {
		_, err = c.Connect(ctx, "wa_main", bad)
		wantCode(t, name, err, apierr.InvalidRequest)
		if e, ok := apierr.As(err); ok && strings.Contains(e.Message, "EAAG") {
			t.Errorf("%s: the refusal repeats the token: %s", name, e.Message)
		}
	}
	_, err = c.Rotate(ctx, "ig_main", "IGQV")
	wantCode(t, "rotating an unconnected account", err, apierr.InvalidRequest)
	if len(store.rows) != 0 || len(*synced) != 0 || store.accounts["wa_main"].Status != "needs_reauth" {
		t.Errorf("refused calls changed something: rows %v, syncs %v, status %s", store.rows, *synced, store.accounts["wa_main"].Status)
	}

	// Instagram takes its own fields and defaults its login; no template sync.
	got, err := c.Connect(ctx, "ig_main", channels.Credentials{IGUserID: "17841405822304914", AccessToken: "IGQV"})
	if err != nil || got.Login != "instagram" || got.ProviderAccountID != "17841405822304914" || len(*synced) != 0 {
		t.Errorf("instagram: %+v %v (syncs %v)", got, err, *synced)
	}
}

// A phone_number_id another workspace's number holds is refused at
// connect, naming that number and workspace to the admin (the operator),
// and nothing is stored, reconnected or synced.
func TestConnectRefusesAnotherWorkspacesProviderID(t *testing.T) {
	c, store, synced := connections(t)
	store.rows["ws_b/wa_others"] = &repo.AccountProvider{WorkspaceID: "ws_b", AccountID: "wa_others", Channel: "whatsapp",
		ProviderKey: "106540352242922", Sealed: "x"}
	in := channels.Credentials{PhoneNumberID: "106540352242922", WABAID: "102290129340398", AccessToken: "EAAG"}
	_, err := c.Connect(asAdmin(true), "wa_main", in)
	wantCode(t, "another workspace's number", err, apierr.InvalidRequest)
	if e, ok := apierr.As(err); !ok || !strings.Contains(e.Message, "input.phoneNumberId") ||
		!strings.Contains(e.Message, "wa_others of workspace ws_b") {
		t.Errorf("refusal %v, want it to name input.phoneNumberId and wa_others of workspace ws_b", err)
	}
	if len(store.rows) != 1 || len(*synced) != 0 || store.accounts["wa_main"].Status != "needs_reauth" {
		t.Errorf("the refused connect changed something: rows %v, syncs %v, status %s", store.rows, *synced,
			store.accounts["wa_main"].Status)
	}
}
