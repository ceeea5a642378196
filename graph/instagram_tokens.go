package graph

import (
	"context"

	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/instagram"
)

// RefreshInstagramTokens refreshes the Instagram Login tokens that are due
// (the periodic job); nothing without the live Instagram adapter.
func (r *Resolver) RefreshInstagramTokens(ctx context.Context) error {
	p, ok := r.Adapters["instagram"].(instagram.TokenRefresher)
	if !ok {
		return nil
	}
	t := &instagram.Tokens{Store: r.Store, Vault: credentials.Vault{Key: r.Seal}, Provider: p, Clock: r.Clock}
	return t.Refresh(ctx)
}
