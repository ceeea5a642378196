package metahook

import (
	"context"
	"log/slog"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/instagram"
)

// eachInstagramAccount runs fn for every Instagram account entry[].id
// names: the accounts whose routing key (ig_user_id, or page_id on Facebook
// Login) it is, else those of Facebook Login whose ig_user_id it is (Meta
// names the Instagram account on either login). Unknown ids are logged and
// ignored.
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
		slog.Info("meta hook: no Instagram account has this id; ignored", "entry_id", entryID)
	}
	return err
}
