package send_test

import (
	"context"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
	"github.com/msgsvc/msgsvc/repo"
)

// vault opens the credentials of the accounts it holds; others have none.
type vault map[string]*channels.Credentials

func (v vault) Of(_ context.Context, _ credentials.Reader, _, accountID string) (*channels.Credentials, error) {
	return v[accountID], nil
}

// seen is an accepting provider that keeps the access token it was given.
type seen struct {
	accepting
	token string
}

func (s *seen) Send(ctx context.Context, m *channels.Message) (*channels.Receipt, error) {
	if m.Account.Provider != nil {
		s.token = m.Account.Provider.AccessToken
	}
	return s.accepting.Send(ctx, m)
}

// The checks only a live send makes, after the channel rules and before
// the provider is called: a provider for the channel, the account's
// credentials and state, the rate-limit holds of earlier answers. None of
// them calls the provider or uses quota; a test key's send makes none.
func TestLiveRulesOverTheFixture(t *testing.T) {
	t.Parallel()
	f := seeded(t)
	f.exec(t, `INSERT INTO templates (id, workspace_id, livemode, whatsapp_account_id, name, language, category, status, body)
		SELECT id || '_live', workspace_id, true, whatsapp_account_id, name, language, category, status, body
		FROM templates WHERE NOT livemode`)
	provider := &seen{}
	newNumber := model.SendMessageInput{Channel: ptr("whatsapp"), To: ptr("+15550301234"), WhatsappAccountID: ptr("wa_main"),
		Template: tpl("order_update", "N")}
	steps := []struct {
		rule  string
		setup func(t *testing.T)
		key   context.Context
		in    model.SendMessageInput
		code  apierr.Code
		msg   string
		calls int32
	}{
		{"no provider for the channel", nil, liveKey, reply("conv_live"),
			apierr.ChannelUnavailable, "Live sending on whatsapp is off on this server: no provider is configured for it; nothing was sent.", 0},
		{"no SMTP relay", nil, liveKey, newEmail("support@verified.test", "kim@example.com"),
			apierr.ChannelUnavailable, "the server has no SMTP relay (MSGSVC_SMTP_RELAY)", 0},
		{"no credentials", func(*testing.T) {
			f.svc.Adapters = map[string]channels.Adapter{"whatsapp": provider}
			f.svc.Credentials = vault{}
		}, liveKey, reply("conv_live"),
			apierr.ChannelUnavailable, "Account wa_main has no provider credentials: it sends with test keys only. Nothing was sent.", 0},
		{"credentials given to the provider", func(*testing.T) {
			f.svc.Credentials = vault{"wa_main": {AccessToken: "token-wa_main"}}
		}, liveKey, reply("conv_live"), "", "", 1},
		{"a held recipient", func(t *testing.T) {
			if err := f.store.InTx(t.Context(), func(q repo.Queries) error {
				return q.SetHold(t.Context(), "ws_main", "wa_main", "+15550009005", f.now.Add(30*time.Second))
			}); err != nil {
				t.Fatal(err)
			}
		}, liveKey, reply("conv_live"), apierr.ChannelRateLimited, "The provider asked to slow down on account wa_main", 1},
		{"another recipient of the held number", nil, liveKey, newNumber, "", "", 2},
		{"the hold over", func(*testing.T) { f.now = f.now.Add(30 * time.Second) }, liveKey, reply("conv_live"), "", "", 3},
		{"a number needing reauth", func(t *testing.T) {
			f.exec(t, `UPDATE channel_accounts SET status = 'needs_reauth' WHERE id = 'wa_main'`)
		}, liveKey, reply("conv_live"),
			apierr.ChannelUnavailable, "The provider rejected the access token of account wa_main; reconnect it with new credentials. Nothing was sent.", 3},
		{"a test key's send on it (sandbox)", nil, testKey, reply("conv_wa_1h"), "", "", 3},
	}
	for _, s := range steps {
		if s.setup != nil {
			s.setup(t)
		}
		_, err := f.svc.Send(s.key, send.Request{Input: s.in})
		t.Run(s.rule, func(t *testing.T) {
			apierrtest.Want(t, err, s.code, s.msg)
			if got := provider.calls.Load(); got != s.calls {
				t.Errorf("provider calls: got %d, want %d", got, s.calls)
			}
			if e, ok := apierr.As(err); ok && e.Code == apierr.ChannelRateLimited && e.RetryAfter != 30*time.Second {
				t.Errorf("Retry-After: got %v, want 30s", e.RetryAfter)
			}
		})
	}
	if provider.token != "token-wa_main" {
		t.Errorf("access token the provider got: got %q, want token-wa_main", provider.token)
	}
	var used int
	if err := f.store.InTx(t.Context(), func(q repo.Queries) (err error) {
		used, err = q.MessagesUsed(t.Context(), "ws_main", true, "2026-10")
		return err
	}); err != nil || used != 3 {
		t.Errorf("messages used: got %d (%v), want 3, one per accepted live send", used, err)
	}
}
