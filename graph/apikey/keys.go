package apikey

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// List returns the workspace's keys of both modes, newest first.
func (s *Service) List(ctx context.Context) ([]*model.APIKey, error) {
	a, err := auth.ForField(ctx, "apiKeys")
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.APIKeyRecords(ctx, a.WorkspaceID)
	if err != nil {
		return nil, fmt.Errorf("apikey: list: %w", err)
	}
	now := s.Clock.Now()
	out := make([]*model.APIKey, len(rows))
	for i := range rows {
		out[i] = View(&rows[i], now)
	}
	return out, nil
}

// Create makes a key of the caller's workspace after step-up create_key.
func (s *Service) Create(ctx context.Context, in model.CreateAPIKeyInput) (*model.CreatedAPIKey, error) {
	a, err := auth.ForField(ctx, "createAPIKey")
	if err != nil {
		return nil, err
	}
	if err := s.checkInput(ctx, a, in); err != nil {
		return nil, err
	}
	if err := s.stepUp(ctx, a, PurposeCreate); err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	secret := NewSecret(in.Mode == "live")
	k := &repo.APIKeyRecord{
		APIKey: repo.APIKey{ID: repo.NewID("key_", now), WorkspaceID: a.WorkspaceID, SecretHash: auth.HashSecret(secret),
			Livemode: in.Mode == "live", Scopes: orAll(in.Scopes), Channels: view.OrEmpty(in.Channels),
			WebsiteIDs: view.OrEmpty(in.WebsiteIds), IPAllowlist: view.OrEmpty(in.IPAllowlist), Version: auth.ServedVersion},
		Name: strings.TrimSpace(in.Name), SecretLast4: secret[len(secret)-4:], CreatedAt: &now,
	}
	if in.ExpiresAt != nil {
		k.ExpiresAt = &in.ExpiresAt.Time
	}
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		if err := q.InsertAPIKey(ctx, k); err != nil {
			return err
		}
		return notifyOwner(ctx, q, a.WorkspaceID, now, "API key created: "+k.Name,
			fmt.Sprintf("A %s API key, %s (%s…%s), was created in your workspace at %s.\n",
				mode(k.Livemode), k.Name, prefix(k.Livemode), k.SecretLast4, now.UTC().Format(time.RFC1123)))
	})
	if err != nil {
		return nil, fmt.Errorf("apikey: create: %w", err)
	}
	s.changed(ctx) // forget a remembered unknown secret: the key works at once
	return &model.CreatedAPIKey{Key: View(k, now), Secret: secret}, nil
}

// checkInput refuses a key that could not work: an unknown mode, scope,
// channel or website, a bad allowlist entry, an expiry in the past.
func (s *Service) checkInput(ctx context.Context, a *auth.Actor, in model.CreateAPIKeyInput) error {
	bad := func(format string, args ...any) error { return apierr.New(apierr.InvalidRequest, format, args...) }
	switch {
	case strings.TrimSpace(in.Name) == "" || len(in.Name) > 100:
		return bad("name must be 1 to 100 characters.")
	case in.Mode != "live" && in.Mode != "test":
		return bad("mode must be live or test.")
	case in.ExpiresAt != nil && !in.ExpiresAt.After(s.Clock.Now()):
		return bad("expiresAt must be in the future.")
	}
	for _, v := range in.Scopes {
		if !auth.ValidScope(v) {
			return bad("%q is not a scope; scopes are %s.", v, strings.Join(auth.Scopes, ", "))
		}
	}
	for _, v := range in.Channels {
		if !channels.Valid(v) {
			return bad("%q is not a channel; channels are %s.", v, strings.Join(channels.Names, ", "))
		}
	}
	for _, v := range in.IPAllowlist {
		if !auth.ValidAllowlistEntry(v) {
			return bad("ipAllowlist entry %q is not an IP address or CIDR range.", v)
		}
	}
	if len(in.WebsiteIds) == 0 {
		return nil
	}
	sites, err := s.Store.Websites(ctx, repo.Scope{WorkspaceID: a.WorkspaceID})
	if err != nil {
		return fmt.Errorf("apikey: websites: %w", err)
	}
	known := map[string]bool{}
	for _, w := range sites {
		known[w.ID] = true
	}
	for _, v := range in.WebsiteIds {
		if !known[v] {
			return bad("websiteIds: %s is no website of this workspace.", v)
		}
	}
	return nil
}

// Roll replaces a key by a new one with its restrictions, after step-up
// roll_key: the old secret works graceHours more, then answers key_rolled.
func (s *Service) Roll(ctx context.Context, id string, graceHours int) (*model.CreatedAPIKey, error) {
	a, err := auth.ForField(ctx, "rollAPIKey")
	if err != nil {
		return nil, err
	}
	if graceHours < 0 || graceHours > MaxGraceHours {
		return nil, apierr.New(apierr.InvalidRequest, "graceHours must be between 0 and %d.", MaxGraceHours)
	}
	if err := s.stepUp(ctx, a, PurposeRoll); err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	var created *repo.APIKeyRecord
	secret := ""
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		old, err := q.APIKeyRecord(ctx, a.WorkspaceID, id, true)
		if err != nil {
			return view.NotFound(err, apierr.APIKeyNotFound, "API key", id)
		}
		if st := Status(old, now); st != "active" {
			return apierr.New(apierr.InvalidRequest, "API key %s is %s; only an active key can be rolled.", id, st)
		}
		secret = NewSecret(old.Livemode)
		created = &repo.APIKeyRecord{APIKey: old.APIKey, Name: old.Name, SecretLast4: secret[len(secret)-4:], CreatedAt: &now}
		created.ID, created.SecretHash = repo.NewID("key_", now), auth.HashSecret(secret)
		if err := q.InsertAPIKey(ctx, created); err != nil {
			return err
		}
		if err := q.RollAPIKey(ctx, a.WorkspaceID, id, created.ID, now, now.Add(time.Duration(graceHours)*time.Hour)); err != nil {
			return err
		}
		return notifyOwner(ctx, q, a.WorkspaceID, now, "API key rolled: "+old.Name,
			fmt.Sprintf("The %s API key %s (%s…%s) was rolled at %s. Its old secret works for %d more hours, "+
				"then answers key_rolled; the new one ends in %s.\n", mode(old.Livemode), old.Name, prefix(old.Livemode),
				old.SecretLast4, now.UTC().Format(time.RFC1123), graceHours, created.SecretLast4))
	})
	if err != nil {
		return nil, err
	}
	s.changed(ctx)
	return &model.CreatedAPIKey{Key: View(created, now), Secret: secret}, nil
}

// Revoke stops a key at once: it answers key_revoked. Revoking a revoked
// key answers it as it is.
func (s *Service) Revoke(ctx context.Context, id string) (*model.APIKey, error) {
	a, err := auth.ForField(ctx, "revokeAPIKey")
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	var k *repo.APIKeyRecord
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		if _, err := q.RevokeAPIKey(ctx, a.WorkspaceID, id, now); err != nil {
			return err
		}
		k, err = q.APIKeyRecord(ctx, a.WorkspaceID, id, false)
		return view.NotFound(err, apierr.APIKeyNotFound, "API key", id)
	})
	if err != nil {
		return nil, err
	}
	s.changed(ctx)
	return View(k, now), nil
}

// notifyOwner queues the owner notice of a key change in its transaction.
func notifyOwner(ctx context.Context, q repo.Queries, workspaceID string, now time.Time, subject, body string) error {
	w, err := q.Workspace(ctx, workspaceID)
	if err != nil || w.OwnerEmail == "" {
		return err
	}
	return q.InsertOutboxEmail(ctx, &repo.OutboxEmail{ID: repo.NewID("eml_", now), WorkspaceID: workspaceID,
		ToAddress: w.OwnerEmail, Subject: subject, CreatedAt: now,
		Body: body + "\nIf this was not you, revoke the key in the portal (Developers, API keys) and tell your team.\n"})
}

func orAll(scopes []string) []string {
	if len(scopes) == 0 {
		return []string{"*"}
	}
	return scopes
}
