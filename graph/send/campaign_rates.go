package send

import (
	"context"
	"log/slog"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/repo"
)

// Rates are the throughputs queued messages are sent at, a second per
// pace key (docs/api.md, Pacing).
type Rates struct {
	// WhatsApp is a number's rate when its tier is not known
	// (MSGSVC_WHATSAPP_THROUGHPUT, WhatsAppRate by default).
	WhatsApp int
	// Instagram, Email and Website are the rates of those channels' accounts.
	Instagram, Email, Website int
	// Tier reads a WhatsApp number's throughput tier from Meta; nil uses
	// WhatsApp.
	Tier ThroughputSource
}

// ThroughputSource says how many messages a second a WhatsApp number may
// send (its throughput.level at Meta); whatsapp.Adapter is one.
type ThroughputSource interface {
	Throughput(ctx context.Context, creds *channels.Credentials) (int, error)
}

// of is the rate of a queued message's pace key.
func (r Rates) of(ctx context.Context, s *Service, m repo.QueuedSend) int {
	rate := 0
	switch m.Channel {
	case "whatsapp":
		rate = r.WhatsApp
		if m.Livemode && r.Tier != nil {
			if tier := r.tier(ctx, s, m); tier > 0 {
				rate = tier
			}
		}
	case "instagram":
		rate = r.Instagram
	case "email":
		rate = r.Email
	default:
		rate = r.Website
	}
	if rate <= 0 {
		return WhatsAppRate
	}
	return rate
}

func (r Rates) tier(ctx context.Context, s *Service, m repo.QueuedSend) int {
	var creds *channels.Credentials
	if s.Credentials != nil {
		err := s.Store.InTx(ctx, func(q repo.Queries) (err error) {
			creds, err = s.Credentials.Of(ctx, q, m.WorkspaceID, m.AccountID)
			return err
		})
		if err != nil || creds == nil {
			return 0
		}
	}
	n, err := r.Tier.Throughput(ctx, creds)
	if err != nil {
		slog.Warn("campaign: throughput tier not read; the default rate applies", "account", m.AccountID, "err", err)
		return 0
	}
	return n
}
