package meta

import "net/http"

// maxIdlePerHost is how many idle connections to one Graph API host the
// clients keep: as many as sends in flight at once, so a call reuses a
// connection (and its TLS session) instead of opening one.
const maxIdlePerHost = 256

// transport is the connection pool of every Client built without an HTTP
// client of its own. http.DefaultTransport keeps 2 idle connections per
// host, so under concurrent sends every call beyond 2 opened a new
// connection; this one keeps maxIdlePerHost, and negotiates HTTP/2 where
// the host offers it (graph.facebook.com does), multiplexing calls on one
// connection.
var transport = func() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 4 * maxIdlePerHost
	t.MaxIdleConnsPerHost = maxIdlePerHost
	t.ForceAttemptHTTP2 = true
	return t
}()
