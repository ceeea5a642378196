package conversation

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// accounts is an in-memory Accounts: the accounts and email domains of one
// workspace.
type accounts struct {
	list    []repo.Account
	domains map[string]repo.EmailDomain
}

func (f accounts) Account(_ context.Context, workspaceID, channel, id string) (*repo.Account, error) {
	for _, a := range f.list {
		if a.WorkspaceID == workspaceID && a.Channel == channel && a.ID == id {
			return &a, nil
		}
	}
	return nil, repo.ErrNotFound
}

func (f accounts) Accounts(_ context.Context, s repo.Scope, channel string) ([]repo.Account, error) {
	var out []repo.Account
	for _, a := range f.list {
		if a.WorkspaceID != s.WorkspaceID || a.Channel != channel {
			continue
		}
		if len(s.WebsiteIDs) > 0 && !slices.Contains(s.WebsiteIDs, a.WebsiteID) {
			continue
		}
		out = append(out, a)
	}
	return out, nil
}

func (f accounts) EmailDomain(_ context.Context, workspaceID, domain string) (*repo.EmailDomain, error) {
	if d, ok := f.domains[domain]; ok && d.WorkspaceID == workspaceID {
		return &d, nil
	}
	return nil, repo.ErrNotFound
}

func ptr[T any](v T) *T { return &v }

// wantCode fails unless err is the API error code (or no error when code is
// empty).
func wantCode(t *testing.T, err error, code apierr.Code) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Fatalf("error = %v, want none", err)
		}
		return
	}
	e, ok := apierr.As(err)
	if !ok || e.Code != code {
		t.Fatalf("error = %v, want code %s", err, code)
	}
}

var (
	web1   = repo.Account{ID: "web_a", WorkspaceID: "ws", Channel: "website", WebsiteID: "web_a", Processing: true}
	web2   = repo.Account{ID: "web_b", WorkspaceID: "ws", Channel: "website", WebsiteID: "web_b", Processing: true}
	waAI   = repo.Account{ID: "wa_ai", WorkspaceID: "ws", Channel: "whatsapp", Processing: true}
	waExt  = repo.Account{ID: "wa_ext", WorkspaceID: "ws", Channel: "whatsapp", Processing: false}
	mailOn = repo.Account{ID: "em_on", WorkspaceID: "ws", Channel: "email", Address: "help@on.test"}
	mailNo = repo.Account{ID: "em_off", WorkspaceID: "ws", Channel: "email", Address: "help@off.test"}
	mailUn = repo.Account{ID: "em_un", WorkspaceID: "ws", Channel: "email", Address: "help@unknown.test"}
	// The processing switch of an email account is its domain's; the
	// account's own flag is ignored.
	fake = accounts{list: []repo.Account{web1, web2, waAI, waExt, mailOn, mailNo, mailUn},
		domains: map[string]repo.EmailDomain{
			"on.test":  {WorkspaceID: "ws", Domain: "on.test", Processing: true},
			"off.test": {WorkspaceID: "ws", Domain: "off.test", Processing: false},
		}}
)

func TestStartModeFollowsProcessing(t *testing.T) {
	now := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	customer := &repo.Contact{ID: "ct_1"}
	for _, c := range []struct {
		acc  repo.Account
		mode string
	}{
		{waAI, "ai"}, {waExt, "external"}, {web1, "ai"},
		{mailOn, "ai"}, {mailNo, "external"},
		{mailUn, "ai"}, // a domain the workspace never configured is processed
	} {
		conv, err := Start(context.Background(), fake, repo.Scope{WorkspaceID: "ws", Livemode: true}, &c.acc, customer, false, now)
		if err != nil {
			t.Fatalf("%s: %v", c.acc.ID, err)
		}
		if conv.Mode != c.mode {
			t.Errorf("%s: mode = %q, want %q", c.acc.ID, conv.Mode, c.mode)
		}
		if conv.Status != "open" || !conv.IntegrationReplies || !conv.Livemode || conv.WorkspaceID != "ws" {
			t.Errorf("%s: status %q, integration replies %v, livemode %v, workspace %q; want open, true, true, ws",
				c.acc.ID, conv.Status, conv.IntegrationReplies, conv.Livemode, conv.WorkspaceID)
		}
		if conv.ContactID == nil || *conv.ContactID != "ct_1" || conv.AccountID != c.acc.ID || conv.Channel != c.acc.Channel {
			t.Errorf("%s: contact %v, account %q, channel %q; want ct_1, %s, %s", c.acc.ID, conv.ContactID, conv.AccountID, conv.Channel, c.acc.ID, c.acc.Channel)
		}
		if !conv.CreatedAt.Equal(now) {
			t.Errorf("%s: created_at = %v, want %v", c.acc.ID, conv.CreatedAt, now)
		}
	}
}

func TestReopenMode(t *testing.T) {
	for _, c := range []struct {
		acc  repo.Account
		mode string
	}{{waAI, "ai"}, {waExt, "external"}, {mailNo, "external"}, {mailOn, "ai"}} {
		conv := &repo.Conversation{WorkspaceID: "ws", Channel: c.acc.Channel, AccountID: c.acc.ID, Mode: "human"}
		got, err := ReopenMode(context.Background(), fake, conv)
		if err != nil {
			t.Fatalf("%s: %v", c.acc.ID, err)
		}
		if got != c.mode {
			t.Errorf("%s: reopen mode = %q, want %q", c.acc.ID, got, c.mode)
		}
	}
	_, err := ReopenMode(context.Background(), fake, &repo.Conversation{WorkspaceID: "ws", Channel: "whatsapp", AccountID: "wa_gone"})
	if err == nil {
		t.Error("reopening on an account that does not exist: no error")
	}
}

func TestChannelAccount(t *testing.T) {
	all := &auth.Actor{WorkspaceID: "ws"}
	onlyB := &auth.Actor{WorkspaceID: "ws", WebsiteIDs: []string{"web_b"}}
	elsewhere := &auth.Actor{WorkspaceID: "ws", WebsiteIDs: []string{"web_z"}}
	for _, c := range []struct {
		name    string
		actor   *auth.Actor
		channel string
		id      *string
		want    string
		code    apierr.Code
	}{
		{"named", all, "whatsapp", ptr("wa_ext"), "wa_ext", ""},
		{"named, unknown", all, "whatsapp", ptr("wa_nope"), "", apierr.InvalidRequest},
		{"named, of another channel", all, "instagram", ptr("wa_ai"), "", apierr.InvalidRequest},
		{"named, website outside the key", onlyB, "website", ptr("web_a"), "", apierr.WebsiteNotAllowed},
		{"named, website of the key", onlyB, "website", ptr("web_b"), "web_b", ""},
		{"oldest the key may use", onlyB, "website", nil, "web_b", ""},
		{"oldest of the workspace", all, "website", nil, "web_a", ""},
		{"none the key may use", elsewhere, "website", nil, "", apierr.WebsiteNotAllowed},
		{"none in the workspace", all, "instagram", nil, "", apierr.InvalidRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			acc, err := ChannelAccount(context.Background(), fake, c.actor, c.channel, "account_id", c.id)
			wantCode(t, err, c.code)
			if c.code == "" && (acc == nil || acc.ID != c.want) {
				t.Fatalf("account = %v, want %s", acc, c.want)
			}
		})
	}
}

func TestCleanTags(t *testing.T) {
	long := string(make([]byte, 101))
	many := make([]string, 51)
	for i := range many {
		many[i] = string(rune('a' + i%26))
	}
	for _, c := range []struct {
		name string
		in   []string
		want []string
		code apierr.Code
	}{
		{"empty list", []string{}, []string{}, ""},
		{"trimmed, repeats dropped, order kept", []string{" vip ", "b", "vip", "a", "b"}, []string{"vip", "b", "a"}, ""},
		{"blank tag", []string{"ok", "  "}, nil, apierr.InvalidRequest},
		{"tag over 100 characters", []string{long}, nil, apierr.InvalidRequest},
		{"51 tags", many, nil, apierr.InvalidRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := cleanTags(c.in)
			wantCode(t, err, c.code)
			if c.code == "" && !slices.Equal(got, c.want) {
				t.Fatalf("tags = %q, want %q", got, c.want)
			}
		})
	}
}

// agents is an in-memory agent lookup for assign.
type agents map[string]repo.Agent

func (f agents) Agent(_ context.Context, workspaceID, id string) (*repo.Agent, error) {
	if a, ok := f[id]; ok && a.WorkspaceID == workspaceID {
		return &a, nil
	}
	return nil, repo.ErrNotFound
}

func TestAssign(t *testing.T) {
	team := agents{
		"usr_on":    {ID: "usr_on", WorkspaceID: "ws", Active: true},
		"usr_off":   {ID: "usr_off", WorkspaceID: "ws", Active: false},
		"usr_other": {ID: "usr_other", WorkspaceID: "ws_other", Active: true},
	}
	for _, c := range []struct {
		name    string
		current *string
		in      graphql.Omittable[*string]
		want    *string
		changed bool
		code    apierr.Code
	}{
		{name: "left out", current: ptr("usr_on"), in: graphql.Omittable[*string]{}, want: ptr("usr_on")},
		{name: "assigned", in: graphql.OmittableOf(ptr("usr_on")), want: ptr("usr_on"), changed: true},
		{name: "same agent again", current: ptr("usr_on"), in: graphql.OmittableOf(ptr("usr_on")), want: ptr("usr_on")},
		{name: "cleared by null", current: ptr("usr_on"), in: graphql.OmittableOf[*string](nil), want: nil, changed: true},
		{name: "inactive agent", in: graphql.OmittableOf(ptr("usr_off")), code: apierr.AgentNotFound},
		{name: "another workspace's agent", in: graphql.OmittableOf(ptr("usr_other")), code: apierr.AgentNotFound},
		{name: "unknown agent", in: graphql.OmittableOf(ptr("usr_nobody")), code: apierr.AgentNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			conv := &repo.Conversation{AssignedAgentID: c.current}
			changed, err := assign(context.Background(), team, "ws", conv, model.UpdateConversationInput{AssignedAgentID: c.in}, nil)
			wantCode(t, err, c.code)
			if c.code != "" {
				return
			}
			if got := slices.Contains(changed, "assigned_agent_id"); got != c.changed {
				t.Errorf("changed names assigned_agent_id: %v, want %v", got, c.changed)
			}
			if (conv.AssignedAgentID == nil) != (c.want == nil) || (c.want != nil && *conv.AssignedAgentID != *c.want) {
				t.Errorf("assigned_agent_id = %v, want %v", conv.AssignedAgentID, c.want)
			}
		})
	}
}
