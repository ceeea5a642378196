package metahook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/channels/whatsapp"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// What a refetch says of a failed download is msgsvc's own sentence: the
// provider's or the guard's reason, never a Go error's text (which names
// addresses).
func TestMediaProblem(t *testing.T) {
	dial := &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 9), Port: 80}, Err: errors.New("refused")}
	expired := apierr.New(apierr.MediaExpired, "expired")
	cases := []struct {
		err  error
		want string
	}{
		{&meta.Error{Message: "msgsvc refused to follow a redirect to a loopback address, which it does not reach", Err: dial},
			"msgsvc refused to follow a redirect to a loopback address, which it does not reach"},
		{&meta.Error{HTTPStatus: 404, Message: "the provider (lookaside.fbsbx.com) answered HTTP 404"}, "the provider (lookaside.fbsbx.com) answered HTTP 404"},
		{&meta.Error{HTTPStatus: 500}, "the provider could not be reached"},
		{whatsapp.ErrDigestMismatch, "the media's bytes do not match the sha256 WhatsApp announced"},
		{fmt.Errorf("reading: %w", dial), "the download failed"},
		{expired, expired.Error()},
	}
	for _, c := range cases {
		if got := mediaProblem(c.err).Error(); got != c.want {
			t.Errorf("mediaProblem(%v) = %q, want %q", c.err, got, c.want)
		}
	}
	if mediaProblem(nil) != nil {
		t.Error("no error became one")
	}
}

// missingProvider has no credentials for any account.
type missingProvider struct{ asked int }

func (m *missingProvider) AccountProvider(context.Context, string, string) (*repo.AccountProvider, error) {
	m.asked++
	return nil, repo.ErrNotFound
}

// A refetch needs the channel's downloader, then the account's
// credentials; what fails is said without the store's own error.
func TestMediaDownloadNeedsDownloaderAndCredentials(t *testing.T) {
	store := &missingProvider{}
	m := &Media{Store: store}
	s := repo.Scope{WorkspaceID: "ws_1"}
	for _, channel := range []string{"whatsapp", "instagram", "email"} {
		if _, _, err := m.Download(t.Context(), s, channel, "acc_1", "media_1", ""); err == nil || err.Error() != "no media downloader for "+channel {
			t.Errorf("%s without a downloader: %v", channel, err)
		}
	}
	if store.asked != 0 {
		t.Errorf("credentials read %d times with no downloader", store.asked)
	}
	m.WhatsApp = &whatsapp.Adapter{}
	if _, _, err := m.Download(t.Context(), s, "whatsapp", "acc_1", "media_1", ""); err == nil || err.Error() != "the account's credentials could not be read" {
		t.Errorf("unknown account: %v", err)
	}
}
