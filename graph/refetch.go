package graph

import (
	"context"
	"fmt"

	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// refetchFile fetches provider media again through the WhatsApp adapter,
// with the credentials of the account the file's message came in on.
func (r *Resolver) refetchFile(ctx context.Context, id string) (*model.Attachment, error) {
	src := func(ctx context.Context, s repo.Scope, channel, accountID, mediaID, sha string) (string, []byte, error) {
		if channel != "whatsapp" || r.WhatsApp == nil {
			return "", nil, fmt.Errorf("no media downloader for %s", channel)
		}
		prov, err := r.Store.AccountProvider(ctx, s.WorkspaceID, accountID)
		if err != nil {
			return "", nil, fmt.Errorf("the account's credentials: %w", err)
		}
		creds, err := credentials.Vault{Key: r.Seal}.Open(prov)
		if err != nil {
			return "", nil, err
		}
		got, err := r.WhatsApp.DownloadMedia(ctx, creds, mediaID, sha)
		if err != nil {
			return "", nil, err
		}
		return got.MimeType, got.Content, nil
	}
	return r.files().Refetch(ctx, r.Store, src, id)
}
