package mail_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/channels/email/emailtest"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// liveEmail is the API with a relay stand-in as the live email adapter and
// a DKIM key on verified.test; txt is the key's DNS record.
type liveEmail struct {
	*resttest.API
	Sink *emailtest.Sink
	TXT  string
}

func newLiveEmail(t testing.TB, configure ...func(*resttest.API)) *liveEmail {
	t.Helper()
	repotest.NeedsPostgres(t) // before the RSA key, slow to make
	sink := emailtest.NewSink().Start(t)
	keyPEM, txt := emailtest.RSAKey(t)
	api := resttest.New(t, append([]func(*resttest.API){func(a *resttest.API) {
		k, err := seal.New("", "mail-test-secret")
		if err != nil {
			t.Fatal(err)
		}
		a.Config.Seal = k
		a.Config.PublicURL = "https://api.msgsvc.test"
		a.Config.Adapters = map[string]channels.Adapter{"email": &email.Adapter{
			Relay: &email.Relay{Addr: sink.Addr, TLS: email.None}, Now: a.Clock.Now, Timeout: 5 * time.Second}}
		dk, err := mail.SealDKIM(k, "ws_main", "verified.test", "msgsvc", keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		if err := a.Store.SetDomainKey(t.Context(), "ws_main", "verified.test", dk); err != nil {
			t.Fatal(err)
		}
	}}, configure...)...)
	return &liveEmail{API: api, Sink: sink, TXT: txt}
}

// list is a list answer's items as objects.
func list(r interface{ Items() []any }) []map[string]any {
	var out []map[string]any
	for _, it := range r.Items() {
		m, _ := it.(map[string]any)
		out = append(out, m)
	}
	return out
}
