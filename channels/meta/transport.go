package meta

import (
	"cmp"
	"net/http"
	"time"

	"github.com/msgsvc/msgsvc/internal/egress"
)

// maxIdlePerHost is how many idle connections to one Graph API host the
// clients keep: as many as sends in flight at once, so a call reuses a
// connection (and its TLS session) instead of opening one.
const maxIdlePerHost = 256

// transport is the connection pool of the calls to the Graph API hosts the
// operator configured (GraphURL, InstagramURL). http.DefaultTransport
// keeps 2 idle connections per host, so under concurrent sends every call
// beyond 2 opened a new connection; this one keeps maxIdlePerHost, and
// negotiates HTTP/2 where the host offers it (graph.facebook.com does),
// multiplexing calls on one connection.
var transport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 4 * maxIdlePerHost
	t.MaxIdleConnsPerHost = maxIdlePerHost
	t.ForceAttemptHTTP2 = true
	return t
}()

// MediaHosts are the hosts besides the Graph API's own that a media
// download (a WhatsApp media URL, an Instagram attachment link, and any
// redirect of theirs) may reach. lookaside.fbsbx.com is the host of both
// in Meta's documents: WhatsApp's media URLs
// (https://developers.facebook.com/documentation/business-messaging/whatsapp/calling/call-transcription,
// "Recording-available webhook") and Instagram's DM attachment links
// (https://developers.facebook.com/docs/instagram-platform/webhooks/new,
// "https://lookaside.fbsbx.com/ig_messaging_cdn/?asset_id=…"). fbcdn.net
// and cdninstagram.com are Meta's content CDN domains, where those links
// may redirect.
var MediaHosts = []string{"lookaside.fbsbx.com", ".fbcdn.net", ".cdninstagram.com"}

// maxMediaRedirects is how many redirects a download follows, each judged
// by the guard.
const maxMediaRedirects = 5

// GuardedClient is the client of a Config's calls: to the configured Graph
// API hosts through the pooled transport (the operator trusts them, a
// stand-in on 127.0.0.1 included); to anything else a payload or an answer
// names (a media URL, a redirect) only over https, only to MediaHosts, and
// never to an internal address (graph/egress).
func (c Config) GuardedClient(timeout time.Duration) *http.Client {
	return egress.New(egress.Options{
		Trusted: []string{cmp.Or(c.GraphURL, DefaultGraphURL), cmp.Or(c.InstagramURL, DefaultInstagramURL)},
		Via:     transport, Hosts: MediaHosts, HostsName: "Meta's media hosts",
		Redirects: maxMediaRedirects, Timeout: timeout, IdlePerHost: 8,
	})
}
