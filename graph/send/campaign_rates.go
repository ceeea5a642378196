package send

import (
	"context"
	"log/slog"
	"time"

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
	creds, err := credentialsOf(ctx, s, m)
	if err != nil || creds == nil {
		return 0
	}
	n, err := r.Tier.Throughput(ctx, creds)
	if err != nil {
		slog.Warn("campaign: throughput tier not read; the default rate applies", "account", m.AccountID, "err", err)
		return 0
	}
	return n
}

// credentialsOf reads the credentials of a queued message's account; nil
// for a channel or mode that needs none.
func credentialsOf(ctx context.Context, s *Service, m repo.QueuedSend) (*channels.Credentials, error) {
	if !m.Livemode || !credentialed[m.Channel] || s.Credentials == nil {
		return nil, nil
	}
	var creds *channels.Credentials
	err := s.Store.InTx(ctx, func(q repo.Queries) (err error) {
		creds, err = s.Credentials.Of(ctx, q, m.WorkspaceID, m.AccountID)
		return err
	})
	return creds, err
}

// credsCache holds the credentials of a lane's accounts for a minute, so
// that a call does not read and unseal them each time.
type credsCache struct {
	at    map[string]time.Time
	creds map[string]*channels.Credentials
}

// of is an account's credentials, read again once a minute; nil when
// they cannot be read now (the call reads them itself then).
func (c *credsCache) of(ctx context.Context, s *Service, m repo.QueuedSend, now time.Time) *channels.Credentials {
	key := m.WorkspaceID + "/" + m.AccountID
	if at, ok := c.at[key]; ok && now.Sub(at) < time.Minute {
		return c.creds[key]
	}
	if c.at == nil {
		c.at, c.creds = map[string]time.Time{}, map[string]*channels.Credentials{}
	}
	creds, err := credentialsOf(ctx, s, m)
	if err != nil {
		return nil
	}
	c.at[key], c.creds[key] = now, creds
	return creds
}
