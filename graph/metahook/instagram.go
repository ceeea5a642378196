package metahook

import (
	"context"
	"log/slog"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/instagram"
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
