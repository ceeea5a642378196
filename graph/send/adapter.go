package send

import (
	"context"
	"fmt"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// SandboxAdapter accepts every message without calling anyone: test keys
// never reach a provider. The sandbox delivery job moves the
// message on to delivered or failed.
type SandboxAdapter struct{}

// Send accepts the message under a made-up provider id.
func (SandboxAdapter) Send(_ context.Context, m *channels.Message) (*channels.Receipt, error) {
	return &channels.Receipt{ProviderIDs: []string{"sandbox_" + m.ID}}, nil
}

// unavailableAdapter stands in for a live channel this server has no
// provider for (email without MSGSVC_SMTP_RELAY). It refuses honestly rather
// than pretend a message went out:
// nothing is stored, no quota is used, and the caller gets
// channel_unavailable (503, so an Idempotency-Key is released for a retry).
type unavailableAdapter struct{ channel string }

// Send refuses: there is no provider to hand the message to.
func (u unavailableAdapter) Send(context.Context, *channels.Message) (*channels.Receipt, error) {
	hint := "no provider is configured for it"
	if u.channel == "email" {
		hint = "the server has no SMTP relay (MSGSVC_SMTP_RELAY)"
	}
	return nil, &channels.Refusal{Code: apierr.ChannelUnavailable,
		Reason: fmt.Sprintf("Live sending on %s is off on this server: %s; nothing was sent.", u.channel, hint)}
}

// adapter picks the adapter of a send: the sandbox for test keys, the
// configured provider for live ones.
func (s *Service) adapter(livemode bool, channel string) channels.Adapter {
	if !livemode {
		return SandboxAdapter{}
	}
	if a, ok := s.Adapters[channel]; ok && a != nil {
		return a
	}
	return unavailableAdapter{channel: channel}
}

// refused is the one place where a provider's refusal becomes an API error:
// its code, its reason as the message, and its Retry-After. Any error that is
// not a Refusal means the provider could not be reached: channel_unavailable.
func refused(err error) *apierr.Error {
	r := channels.AsRefusal(err)
	e := apierr.New(r.Code, "%s", r.Reason)
	e.RetryAfter = r.RetryAfter
	return e
}
