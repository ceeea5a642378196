package webhook

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Limits of an endpoint's fields.
const (
	maxWebhookURL         = 2048
	maxWebhookDescription = 500
	maxGraceHours         = 168
	// defaultGraceHours is the grace of a roll that names none.
	defaultGraceHours = 24
)

// ListEndpoints is GET /v1/webhook-endpoints: every endpoint of the workspace, with the egress addresses.
func (s *Service) ListEndpoints(ctx context.Context) (*model.WebhookEndpointList, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.WebhookEndpoints(ctx, a.WorkspaceID)
	if err != nil {
		return nil, err
	}
	return &model.WebhookEndpointList{Items: view.Map(visible(a, rows), toWebhookEndpoint), EgressIPs: view.OrEmpty(s.config().EgressIPs)}, nil
}

// CreateEndpoint stores the endpoint, then verifies it: a failed
// handshake still creates it, unverified, so the caller can fix the URL;
// meanwhile the handshake runs again in the background (ReverifyEndpoints).
func (s *Service) CreateEndpoint(ctx context.Context, in model.CreateWebhookEndpointInput) (*model.WebhookEndpoint, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	e := &repo.WebhookEndpoint{ID: repo.NewID("we_", now), WorkspaceID: a.WorkspaceID, Enabled: true, CreatedAt: now}
	if e.URL, err = s.webhookURL(in.URL); err != nil {
		return nil, err
	}
	if in.Description != nil {
		if e.Description, err = webhookDescription(*in.Description); err != nil {
			return nil, err
		}
	}
	if e.Events, err = webhookEvents(in.Events); err != nil {
		return nil, err
	}
	if e.Channels, err = webhookChannels(a, in.Channels); err != nil {
		return nil, err
	}
	if e.WebsiteIDs, err = s.webhookWebsites(ctx, a, in.WebsiteIDs); err != nil {
		return nil, err
	}
	e.MetadataOnly = in.MetadataOnly != nil && *in.MetadataOnly
	e.TestEvents = in.TestEvents != nil && *in.TestEvents
	secret, err := chosenSecret(in.Secret)
	if err != nil {
		return nil, err
	}
	if e.Secret, err = s.sealSecret(e.ID, secret); err != nil {
		return nil, err
	}
	if err := s.Store.InsertWebhookEndpoint(ctx, e); err != nil {
		return nil, err
	}
	verification := s.verifyAndPlan(ctx, a.Livemode, e, now)
	out := toWebhookEndpoint(e)
	out.Secret, out.Verification = &secret, verification
	return out, nil
}

// UpdateEndpoint applies a PATCH. A new URL loses its verification
// and is verified again once the change is committed.
func (s *Service) UpdateEndpoint(ctx context.Context, id string, in model.UpdateWebhookEndpointInput) (*model.WebhookEndpoint, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	var e *repo.WebhookEndpoint
	var newURL bool
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		var err error
		if e, err = lockEndpoint(ctx, q, a, id); err != nil {
			return err
		}
		if newURL, err = s.applyEndpointChanges(ctx, a, e, in); err != nil {
			return err
		}
		switchOff := in.Enabled != nil && !*in.Enabled && e.Enabled
		if in.Enabled != nil && *in.Enabled && !e.Enabled {
			e.Enabled, e.DisabledReason, e.FailingSince = true, nil, nil
		}
		if err := q.UpdateWebhookEndpoint(ctx, e); err != nil {
			return err
		}
		if switchOff {
			reason := "manual"
			e.Enabled, e.DisabledReason = false, &reason
			_, err = q.SwitchOffWebhook(ctx, e.ID, reason, "endpoint switched off")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := toWebhookEndpoint(e)
	if newURL {
		out.Verification = s.verifyAndPlan(ctx, a.Livemode, e, s.Clock.Now())
		out.Status, out.VerifiedAt = endpointStatus(e), model.TimestampPtr(e.VerifiedAt)
	}
	return out, nil
}

// applyEndpointChanges validates a PATCH and applies it to e; it reports
// whether the URL changed.
func (s *Service) applyEndpointChanges(ctx context.Context, a *auth.Actor, e *repo.WebhookEndpoint, in model.UpdateWebhookEndpointInput) (bool, error) {
	var err error
	newURL := false
	if in.URL != nil {
		u, err := s.webhookURL(*in.URL)
		if err != nil {
			return false, err
		}
		// Giving the URL of an unverified endpoint again runs the
		// handshake again, once its owner has fixed the receiver.
		if newURL = u != e.URL || e.VerifiedAt == nil; newURL {
			e.URL, e.VerifiedAt = u, nil
		}
	}
	if in.Description != nil {
		if e.Description, err = webhookDescription(*in.Description); err != nil {
			return false, err
		}
	}
	if in.Events != nil {
		if e.Events, err = webhookEvents(in.Events); err != nil {
			return false, err
		}
	}
	if in.Channels != nil {
		if e.Channels, err = webhookChannels(a, in.Channels); err != nil {
			return false, err
		}
	}
	if in.WebsiteIDs != nil {
		if e.WebsiteIDs, err = s.webhookWebsites(ctx, a, in.WebsiteIDs); err != nil {
			return false, err
		}
	}
	if in.MetadataOnly != nil {
		e.MetadataOnly = *in.MetadataOnly
	}
	if in.TestEvents != nil {
		e.TestEvents = *in.TestEvents
	}
	return newURL, nil
}

// DeleteEndpoint is DELETE /v1/webhook-endpoints/{id}.
func (s *Service) DeleteEndpoint(ctx context.Context, id string) (*model.Deleted, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.Store.InTx(ctx, func(q repo.Queries) error {
		if _, err := lockEndpoint(ctx, q, a, id); err != nil {
			return err
		}
		return q.DeleteWebhookEndpoint(ctx, a.WorkspaceID, id, s.Clock.Now())
	}); err != nil {
		return nil, view.NotFound(err, apierr.EndpointNotFound, "webhook endpoint", id)
	}
	return &model.Deleted{ID: id, Object: "webhook_endpoint", Deleted: true}, nil
}

// RollSecret replaces the signing secret; the old one keeps
// co-signing for the grace period (24 hours unless given), so receivers can
// switch without a gap.
func (s *Service) RollSecret(ctx context.Context, id string, in model.RollWebhookSecretInput) (*model.RolledWebhookSecret, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	grace := defaultGraceHours
	if in.GraceHours != nil {
		grace = *in.GraceHours
	}
	if grace < 0 || grace > maxGraceHours {
		return nil, apierr.New(apierr.InvalidRequest, "grace_hours must be a whole number from 0 to 168.")
	}
	secret, err := newWebhookSecret()
	if err != nil {
		return nil, err
	}
	sealed, err := s.sealSecret(id, secret)
	if err != nil {
		return nil, err
	}
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		e, err := lockEndpoint(ctx, q, a, id)
		if err != nil {
			return err
		}
		var previous []byte
		var until *time.Time
		if grace > 0 {
			t := s.Clock.Now().Add(time.Duration(grace) * time.Hour)
			previous, until = e.Secret, &t
		}
		return q.RollWebhookSecret(ctx, a.WorkspaceID, id, sealed, previous, until)
	})
	if err != nil {
		return nil, view.NotFound(err, apierr.EndpointNotFound, "webhook endpoint", id)
	}
	return &model.RolledWebhookSecret{ID: id, GraceHours: grace, Secret: secret}, nil
}

// webhookURL checks an endpoint URL: absolute, HTTPS unless insecure
// delivery is allowed. Addresses are checked when connecting, after DNS.
func (s *Service) webhookURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if raw == "" || err != nil || u.Host == "" || u.Hostname() == "" || len(raw) > maxWebhookURL {
		return "", apierr.New(apierr.InvalidRequest, "url must be an absolute https:// URL of at most %d characters.", maxWebhookURL)
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !s.config().AllowInsecure) {
		return "", apierr.New(apierr.InvalidRequest, "url must use https; for local development, "+
			"MSGSVC_WEBHOOK_ALLOW_INSECURE=true lets msgsvc deliver to http:// URLs and to local addresses.")
	}
	return raw, nil
}

func webhookDescription(d string) (string, error) {
	d = strings.TrimSpace(d)
	if len([]rune(d)) > maxWebhookDescription {
		return "", apierr.New(apierr.InvalidRequest, "description must be at most %d characters.", maxWebhookDescription)
	}
	return d, nil
}

// webhookEvents checks the event types asked for; none given means all.
func webhookEvents(in []string) ([]string, error) {
	if in == nil {
		return []string{"*"}, nil
	}
	if len(in) == 0 {
		return nil, apierr.New(apierr.InvalidRequest, "events needs at least one event type, or \"*\" for all.")
	}
	return checkedSet(in, func(t string) error {
		if t != "*" && !slices.Contains(subscribable, t) {
			return apierr.New(apierr.InvalidRequest, "events: %q is not an event type; use one of %s or \"*\".", t, strings.Join(subscribable, ", "))
		}
		return nil
	})
}

// checkedSet checks each value and drops repeats, keeping the order.
func checkedSet(in []string, check func(string) error) ([]string, error) {
	out := []string{}
	for _, v := range in {
		if err := check(v); err != nil {
			return nil, err
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}
