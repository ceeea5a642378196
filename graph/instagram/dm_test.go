package instagram_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	igch "github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/instagram"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/repo"
)

// fakeStore knows some mids and whether a send is in flight.
type fakeStore struct {
	known   map[string]bool
	sending bool
	// confirms is a mid whose send's confirm commits while the sending
	// check runs.
	confirms string
}

func (f *fakeStore) InTx(context.Context, func(repo.Queries) error) error {
	return errors.New("no database in this test")
}

func (f *fakeStore) ProviderMessageOn(_ context.Context, _ repo.Scope, _, _, mid string) (*repo.ProviderMessage, error) {
	if f.known[mid] {
		return &repo.ProviderMessage{ProviderID: mid}, nil
	}
	return nil, repo.ErrNotFound
}

func (f *fakeStore) InstagramSending(context.Context, repo.Scope, string, string) (bool, error) {
	if f.confirms != "" {
		f.known[f.confirms] = true
	}
	return f.sending, nil
}

// fakeReceiver keeps what it was asked to store.
type fakeReceiver struct{ got []inbound.Message }

func (f *fakeReceiver) Receive(_ context.Context, _ repo.Scope, _ *repo.Account, m inbound.Message) (*model.InboundResult, error) {
	f.got = append(f.got, m)
	return &model.InboundResult{}, nil
}

// fakeMedia serves attachments by URL; others fail.
type fakeMedia map[string][]byte

func (f fakeMedia) DownloadAttachment(_ context.Context, _ *channels.Credentials, kind, url string) (*igch.Attachment, error) {
	if b, ok := f[url]; ok {
		return &igch.Attachment{Filename: kind + ".png", ContentType: "image/png", Content: b}, nil
	}
	return nil, errors.New("404")
}

const ownID = "17841405822304914"

func newService(known ...string) (*instagram.Service, *fakeStore, *fakeReceiver) {
	st := &fakeStore{known: map[string]bool{}}
	for _, k := range known {
		st.known[k] = true
	}
	rcv := &fakeReceiver{}
	return &instagram.Service{Inbound: rcv, Store: st, Media: fakeMedia{"https://cdn.test/ok": []byte("png")}}, st, rcv
}

func handle(t *testing.T, svc *instagram.Service, ev meta.Event) error {
	t.Helper()
	acc := &repo.Account{ID: "ig_main", WorkspaceID: "ws_main", Channel: "instagram"}
	return svc.HandleInstagram(context.Background(), acc, &channels.Credentials{Login: "instagram", IGUserID: ownID}, ev)
}

func dm(sender, recipient, mid string) *meta.InstagramMessage {
	return &meta.InstagramMessage{InstagramRoute: meta.InstagramRoute{AccountID: ownID}, SenderID: sender, RecipientID: recipient,
		MID: mid, Timestamp: time.Date(2026, 10, 15, 11, 59, 0, 0, time.UTC)}
}

func TestDMContent(t *testing.T) {
	svc, _, rcv := newService()
	m := dm("IGSID-1", ownID, "mid.1")
	m.Attachments = []meta.InstagramAttachment{{Type: "image", URL: "https://cdn.test/ok"}, {Type: "video", URL: "https://cdn.test/gone"},
		{Type: "share", URL: "https://www.instagram.com/p/abc/"}}
	if err := handle(t, svc, m); err != nil {
		t.Fatal(err)
	}
	if len(rcv.got) != 1 {
		t.Fatalf("%d received", len(rcv.got))
	}
	in := rcv.got[0]
	if in.From != "IGSID-1" || !in.At.Equal(m.Timestamp) || in.Echo != nil || in.Type != "image" || in.Text != nil ||
		len(in.Files) != 2 || string(in.Files[0].Content) != "png" || in.Stored == nil {
		t.Fatalf("received %+v text %q", in, deref(in.Text))
	}
	// The video that could not be fetched is kept, failed, with why.
	if f := in.Files[1]; f.Failed == "" || len(f.Content) != 0 || f.Filename != "video" {
		t.Fatalf("failed file %+v", f)
	}
	if sh := in.Rich.Share; sh == nil || sh.URL != "https://www.instagram.com/p/abc/" || *in.Rich.ProviderMessageID != "mid.1" {
		t.Fatalf("share %+v", in.Rich)
	}
}

func TestRetriedDMAndOwnEchoChangeNothing(t *testing.T) {
	svc, _, rcv := newService("mid.seen", "mid.ours")
	m := dm("IGSID-1", ownID, "mid.seen")
	m.Text = "hi"
	echo := dm(ownID, "IGSID-1", "mid.ours")
	echo.IsEcho = true
	unechoed := dm(ownID, "IGSID-1", "mid.ours") // is_echo missing, sent by the account
	for _, ev := range []meta.Event{m, echo, unechoed} {
		if err := handle(t, svc, ev); err != nil {
			t.Fatal(err)
		}
	}
	if len(rcv.got) != 0 {
		t.Fatalf("stored %+v", rcv.got)
	}
}

func TestAppEchoIsOutbound(t *testing.T) {
	svc, st, rcv := newService()
	echo := dm(ownID, "IGSID-1", "mid.app")
	echo.IsEcho, echo.Text = true, "from the app"
	st.sending = true
	if err := handle(t, svc, echo); !errors.Is(err, instagram.ErrSendInFlight) || len(rcv.got) != 0 {
		t.Fatalf("during a send: %v, %d stored", err, len(rcv.got))
	}
	st.sending = false
	if err := handle(t, svc, echo); err != nil {
		t.Fatal(err)
	}
	in := rcv.got[0]
	if in.From != "IGSID-1" || in.Echo == nil || in.Echo.SenderType != "instagram_app" || in.Echo.ProviderMessageID != "mid.app" || deref(in.Text) != "from the app" {
		t.Fatalf("echo stored as %+v", in)
	}
}

// The echo of a send whose confirm commits between the lookup of its mid
// and the sending check is that send's, not a message from the app.
func TestEchoOfASendConfirmedMeanwhile(t *testing.T) {
	svc, st, rcv := newService()
	echo := dm(ownID, "IGSID-1", "mid.racing")
	echo.IsEcho, echo.Text = true, "our reply"
	st.confirms = "mid.racing"
	if err := handle(t, svc, echo); err != nil || len(rcv.got) != 0 {
		t.Fatalf("%v, stored %+v", err, rcv.got)
	}
}

func TestOwnCommentIgnored(t *testing.T) {
	svc, _, rcv := newService()
	c := &meta.InstagramComment{InstagramRoute: meta.InstagramRoute{AccountID: "104000000000001"}, Field: "comments",
		ID: "1790", FromID: ownID, MediaID: "1780", Text: "our reply"}
	if err := handle(t, svc, c); err != nil || len(rcv.got) != 0 {
		t.Fatalf("%v, %d stored", err, len(rcv.got))
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
