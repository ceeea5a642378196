package metahook

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/channels/whatsapp"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/instagram"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// AccountProviders reads an account's sealed credentials; repo.Store is one.
type AccountProviders interface {
	AccountProvider(ctx context.Context, workspaceID, accountID string) (*repo.AccountProvider, error)
}

// Media downloads provider media again (a file's refetch): through the
// WhatsApp adapter by media id, or the Instagram one from the
// attachment's CDN link, with the credentials of the account the file's
// message came in on. A channel without its downloader refetches nothing.
type Media struct {
	Store     AccountProviders
	Vault     credentials.Vault
	WhatsApp  WhatsApp
	Instagram instagram.Downloader
}

// Download is a files.MediaSource.
func (m *Media) Download(ctx context.Context, s repo.Scope, channel, accountID, mediaID, sha string) (string, []byte, error) {
	if (channel != "whatsapp" || m.WhatsApp == nil) && (channel != "instagram" || m.Instagram == nil) {
		return "", nil, fmt.Errorf("no media downloader for %s", channel)
	}
	prov, err := m.Store.AccountProvider(ctx, s.WorkspaceID, accountID)
	if err != nil {
		return "", nil, errors.New("the account's credentials could not be read")
	}
	creds, err := m.Vault.Open(prov)
	if err != nil {
		return "", nil, errors.New("the account's credentials could not be opened")
	}
	if channel == "instagram" {
		ctype, content, err := instagramRefetch(ctx, m.Instagram, creds, mediaID)
		return ctype, content, mediaProblem(err)
	}
	got, err := m.WhatsApp.DownloadMedia(ctx, creds, mediaID, sha)
	if err != nil {
		return "", nil, mediaProblem(err)
	}
	return got.MimeType, got.Content, nil
}

// instagramRefetch downloads an Instagram attachment again from the link
// its webhook gave. The links are signed and expire: a link the CDN no
// longer serves (403, 404, 410) is 422 media_expired.
func instagramRefetch(ctx context.Context, media instagram.Downloader, creds *channels.Credentials, link string) (string, []byte, error) {
	got, err := media.DownloadAttachment(ctx, creds, "attachment", link)
	var e *meta.Error
	if errors.As(err, &e) && (e.HTTPStatus == http.StatusForbidden || e.HTTPStatus == http.StatusNotFound || e.HTTPStatus == http.StatusGone) {
		return "", nil, apierr.New(apierr.MediaExpired, "Instagram no longer serves this attachment (HTTP %d): its link expired; ask the customer to send it again.", e.HTTPStatus)
	}
	if err != nil {
		return "", nil, err
	}
	return got.ContentType, got.Content, nil
}

// mediaProblem is what the caller of a refetch is told of a failed
// download, and what the attachment keeps: the cause as msgsvc names it
// (its guard's refusal, the provider's answer, the connection's failure;
// meta.Error carries no address, URL path or body), never a Go error's
// own text.
func mediaProblem(err error) error {
	var e *meta.Error
	switch {
	case err == nil:
		return nil
	case errors.Is(err, whatsapp.ErrDigestMismatch):
		return errors.New("the media's bytes do not match the sha256 WhatsApp announced")
	case errors.As(err, &e):
		if reason := e.Reason(); reason != "" {
			return errors.New(reason)
		}
		return errors.New("the provider could not be reached")
	}
	if _, ok := apierr.As(err); ok {
		return err
	}
	return errors.New("the download failed")
}
