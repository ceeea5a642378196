package send

import (
	"context"
	"fmt"
	"time"

	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// needsReauth is the refusal of a send on a needs_reauth account, with the
// provider's answer that made it so when it is known.
func needsReauth(ctx context.Context, q repo.Queries, acc *repo.Account) error {
	why := ""
	if checks, err := q.AccountChecks(ctx, acc.WorkspaceID); err != nil {
		return err
	} else if c := checks[acc.ID].Reauth; c != nil && c.Error != nil {
		why = fmt.Sprintf(" (at %s it answered %s)", c.At.UTC().Format(time.RFC3339), *c.Error)
	}
	return apierr.New(apierr.ChannelUnavailable, "The provider rejected the access token of account %s%s; reconnect it with new credentials. Nothing was sent.", acc.ID, why)
}
