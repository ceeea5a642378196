package metahook

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/ops/metrics"
	"github.com/msgsvc/msgsvc/repo"
)

// preference applies a user_preferences stop (marketing_opt_outs.whatsapp
// set) or resume (cleared, whatever set it) to the customer's contact: it
// is about marketing messages only (docs/whatsapp.md), so opt_outs.whatsapp (a
// STOP, the business's choice) is not touched.
func (s *Service) preference(ctx context.Context, t target, p *meta.WhatsAppUserPreference) error {
	var optOut bool
	switch strings.ToLower(p.Value) {
	case "stop":
		optOut = true
	case "resume":
	default:
		slog.Info("meta hook: user preference not understood", "value", p.Value)
		return nil
	}
	if p.Category != "" && p.Category != "marketing_messages" {
		slog.Info("meta hook: user preference of another category", "category", p.Category)
		return nil
	}
	who := recipientOf(p.WAID, p.UserID)
	if who == "" {
		return fmt.Errorf("metahook: user preference of wa_id %q, user_id %q: neither names a customer", p.WAID, p.UserID)
	}
	return s.marketingOptOut(ctx, t.acc.WorkspaceID, who, optOut)
}

// marketingOptOut sets or clears a live contact's marketing opt-out and
// announces contact.updated when it changed.
func (s *Service) marketingOptOut(ctx context.Context, workspaceID, who string, optOut bool) error {
	scope := repo.Scope{WorkspaceID: workspaceID, Livemode: true}
	changed := false
	err := s.Store.InTx(ctx, func(q repo.Queries) error {
		c, err := contact.SetOptOut(ctx, q, s.Events, scope, contact.OptOut{Channel: "whatsapp", Kind: contact.Marketing,
			Stop: optOut, Address: who}, s.Clock.Now())
		changed = c != nil
		return err
	})
	if err == nil && changed {
		s.Events.Committed(ctx)
	}
	return err
}

// templateStatus applies a message_template_status_update to the synced
// templates of every number of the WABA.
func (s *Service) templateStatus(ctx context.Context, e *meta.WhatsAppTemplateStatus) error {
	status := TemplateStatus(e.Event)
	return s.eachOfWABA(ctx, e.WABAID, func(t target) error {
		return s.Store.InTx(ctx, func(q repo.Queries) error {
			n, err := q.SetTemplateStatus(ctx, t.acc.WorkspaceID, t.acc.ID, e.Name, e.Language, status)
			if err == nil && n == 0 {
				slog.Info("meta hook: status of a template not synced yet", "name", e.Name, "account", t.acc.ID)
			}
			return err
		})
	})
}

// TemplateStatus maps Meta's template status onto the API's: APPROVED,
// PENDING (also IN_APPEAL and the like) or REJECTED (also PAUSED, DISABLED,
// DELETED: not sendable).
func TemplateStatus(meta string) string {
	switch s := strings.ToUpper(meta); {
	case s == "APPROVED":
		return "APPROVED"
	case s == "PENDING" || s == "IN_APPEAL" || strings.HasPrefix(s, "PENDING"):
		return "PENDING"
	default:
		return "REJECTED"
	}
}

// eachOfWABA runs fn for every WhatsApp number whose credentials name the
// WABA ("" for all numbers).
func (s *Service) eachOfWABA(ctx context.Context, wabaID string, fn func(target) error) error {
	rows, err := s.Store.AccountProviders(ctx, "whatsapp")
	if err != nil {
		return err
	}
	var keep func(*channels.Credentials) bool
	if wabaID != "" {
		keep = func(c *channels.Credentials) bool { return c.WABAID == wabaID }
	}
	return s.forRows(ctx, "whatsapp", rows, keep, fn)
}

// SyncTemplates refreshes the templates and marketing onboarding of every
// connected number (workspaceID and accountID "" for all): at start, every
// MSGSVC_TEMPLATE_SYNC_EVERY and after a 132001. A number whose sync
// succeeds is connected again if it needed reauth.
func (s *Service) SyncTemplates(ctx context.Context, workspaceID, accountID string) error {
	if s.WhatsApp == nil {
		return nil
	}
	return s.eachOfWABA(ctx, "", func(t target) error {
		if (workspaceID != "" && t.acc.WorkspaceID != workspaceID) || (accountID != "" && t.acc.ID != accountID) {
			return nil
		}
		sync, err := s.WhatsApp.SyncTemplates(ctx, t.creds)
		if err != nil {
			return s.syncFailed(ctx, t, err)
		}
		rows := make([]repo.Template, 0, len(sync.Templates))
		for _, tpl := range sync.Templates {
			category := strings.ToUpper(tpl.Category)
			if category != "MARKETING" && category != "UTILITY" && category != "AUTHENTICATION" {
				continue
			}
			rows = append(rows, repo.Template{ID: "tpl_" + t.acc.ID + "_" + tpl.ID, Name: tpl.Name, Language: tpl.Language,
				Category: category, Status: TemplateStatus(tpl.Status), Body: tpl.Body,
				Components: repo.JSONB(tpl.Components), ParameterFormat: tpl.ParameterFormat})
		}
		metrics.ObserveTemplateSync("ok")
		return s.Store.InTx(ctx, func(q repo.Queries) error {
			if err := q.ReplaceSyncedTemplates(ctx, t.acc.WorkspaceID, t.acc.ID, rows); err != nil {
				return err
			}
			if err := q.SetAccountCheck(ctx, t.acc.WorkspaceID, t.acc.ID, repo.CheckTemplateSync,
				repo.AccountCheck{Status: "ok", At: s.Clock.Now()}); err != nil {
				return err
			}
			if sync.MarketingMessages != "" {
				if err := q.SetAccountMarketing(ctx, t.acc.WorkspaceID, t.acc.ID, sync.MarketingMessages); err != nil {
					return err
				}
			}
			if t.acc.Status == "needs_reauth" {
				_, err := q.SetAccountStatus(ctx, t.acc.WorkspaceID, t.acc.ID, "connected")
				return err
			}
			return nil
		})
	})
}

// syncFailed logs a failed sync, counts it, and shows it on the number
// (template_sync: failed with the provider's code and text or the network
// cause); a rejected token marks the number needs_reauth.
func (s *Service) syncFailed(ctx context.Context, t target, err error) error {
	refusal := channels.AsRefusal(err)
	slog.Warn("template sync failed", "account", t.acc.ID, "reason", refusal.Reason, "err", err)
	metrics.ObserveTemplateSync(string(refusal.Code))
	reason := refusal.Reason
	return s.Store.InTx(ctx, func(q repo.Queries) error {
		if err := q.SetAccountCheck(ctx, t.acc.WorkspaceID, t.acc.ID, repo.CheckTemplateSync,
			repo.AccountCheck{Status: "failed", Error: &reason, At: s.Clock.Now()}); err != nil {
			return err
		}
		if !refusal.NeedsReauth {
			return nil
		}
		return q.NeedsReauth(ctx, t.acc.WorkspaceID, t.acc.ID, reason, s.Clock.Now())
	})
}
