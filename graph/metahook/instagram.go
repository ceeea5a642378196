package metahook

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/channels/meta"
)

// eachInstagramAccount runs fn for every Instagram account entry[].id
// names. Meta's Instagram webhooks name the Instagram professional account
// in entry[].id on both logins (Instagram Login and Facebook Login), and an
// account's routing key is that id (fetched from its Page at connect on
// Facebook Login). An account whose key is not that id (one connected on
// Facebook Login before its Instagram id was known, keyed by its Page) is
// still found when its credentials carry the id. An id of no account is
// logged with the id, never dropped silently.
func (s *Service) eachInstagramAccount(ctx context.Context, entryID string, fn func(target) error) error {
	if entryID == "" {
		slog.Info("meta hook: Instagram entry without id; ignored")
		return nil
	}
	rows, err := s.Store.AccountProvidersByKey(ctx, "instagram", entryID)
	if err != nil {
		return err
	}
	var keep func(*channels.Credentials) bool
	if len(rows) == 0 {
		if rows, err = s.Store.AccountProviders(ctx, "instagram"); err != nil {
			return err
		}
		keep = func(c *channels.Credentials) bool { return instagram.Owns(c, entryID) }
	}
	matched := 0
	err = s.forRows(ctx, "instagram", rows, keep, func(t target) error {
		matched++
		return fn(t)
	})
	if matched == 0 && err == nil {
		slog.Warn("meta hook: no connected Instagram account has this Instagram account id; the event is not processed "+
			"(connect the account, or reconnect a Facebook Login account so that its Instagram id is read from its Page)",
			"entry_id", entryID)
	}
	return err
}

// maxSecretEntries bounds the accounts whose app secrets an unverified
// payload may make us read.
const maxSecretEntries = 10

// AppSecrets are the app secrets that may verify an Instagram payload the
// global MSGSVC_META_APP_SECRET does not: an account connected through a
// Meta app of its own (Instagram Login apps have their own secret) signs
// with that app's secret. Such a secret vouches only for its own accounts,
// so only a secret of an account of every id the payload names in
// entry[].id (at most maxSecretEntries ids) is one: a payload signed by one
// app never carries events into another app's accounts. Read before the
// signature is checked, the payload only chooses which secrets to try.
func (s *Service) AppSecrets(ctx context.Context, raw []byte) ([]string, error) {
	var env struct {
		Object string `json:"object"`
		Entry  []struct {
			ID meta.ID `json:"id"`
		} `json:"entry"`
	}
	if json.Unmarshal(raw, &env) != nil || env.Object != meta.ObjectInstagram || len(env.Entry) == 0 {
		return nil, nil
	}
	var ids []string
	for _, e := range env.Entry {
		if !slices.Contains(ids, string(e.ID)) {
			ids = append(ids, string(e.ID))
		}
	}
	if len(ids) > maxSecretEntries {
		return nil, nil
	}
	var common []string
	for i, id := range ids {
		own, err := s.accountSecrets(ctx, id)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			common = own
		} else {
			common = slices.DeleteFunc(common, func(secret string) bool { return !slices.Contains(own, secret) })
		}
		if len(common) == 0 {
			return nil, nil
		}
	}
	return common, nil
}

// accountSecrets are the app secrets of the Instagram accounts keyed by id.
func (s *Service) accountSecrets(ctx context.Context, id string) ([]string, error) {
	if id == "" {
		return nil, nil
	}
	rows, err := s.Store.AccountProvidersByKey(ctx, "instagram", id)
	if err != nil {
		return nil, err
	}
	var secrets []string
	for j := range rows {
		creds, err := s.Vault.Open(&rows[j])
		if err != nil || creds.AppSecret == "" || slices.Contains(secrets, creds.AppSecret) {
			continue
		}
		secrets = append(secrets, creds.AppSecret)
	}
	return secrets, nil
}
