package files

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

type oneFile struct{ f *repo.File }

func (s oneFile) InsertFile(context.Context, *repo.File) error                { return nil }
func (s oneFile) FileChunk(context.Context, string, int, int) ([]byte, error) { return nil, nil }
func (s oneFile) FileByID(_ context.Context, id string) (*repo.File, error) {
	if id != s.f.ID {
		return nil, repo.ErrNotFound
	}
	return s.f, nil
}

// open follows a signed link through svc.Content.
func open(t *testing.T, svc *Service, link string) error {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSuffix(strings.TrimPrefix(u.Path, "/v1/files/"), "/content")
	_, err = svc.Content(t.Context(), id, u.Query().Get("expires"), u.Query().Get("signature"))
	return err
}

func TestLinksAcrossASecretRotation(t *testing.T) {
	now := time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)
	store := oneFile{&repo.File{ID: "file_1"}}
	svc := func(secrets ...string) *Service {
		return &Service{Store: store, Clock: func() time.Time { return now }, Secrets: signing.Secrets(secrets)}
	}
	oldLink := svc("old-secret-0123456").URL("file_1")
	rotated := svc("new-secret-0123456", "old-secret-0123456")
	if err := open(t, rotated, oldLink); err != nil {
		t.Fatalf("a link signed before the rotation: %v", err)
	}
	newLink := rotated.URL("file_1")
	if err := open(t, svc("new-secret-0123456"), newLink); err != nil {
		t.Fatalf("a new link is not signed with the first secret: %v", err)
	}
	if e, ok := apierr.As(open(t, svc("new-secret-0123456"), oldLink)); !ok || e.Code != apierr.FileLinkInvalid {
		t.Fatalf("a link of a secret no longer listed: %v", e)
	}
}
