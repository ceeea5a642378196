// Package web is the msgsvc app (the agent inbox and the developer portal):
// its TypeScript sources are in src/, built by `npm run build` (make web) into
// dist/, which is committed and embedded here, so `go build` needs no node.
package web

import (
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed all:dist
var dist embed.FS

// Dist is the built app: index.html and assets/.
func Dist() fs.FS {
	sub, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err)
	}
	return sub
}

// CSP is the Content-Security-Policy of every answer under /app/: scripts and
// styles only from the app's own files (no inline script, no style attribute,
// no eval), requests and the graphql-ws socket only to the same origin
// ('self' covers ws: and wss: of the same host), no plugin, no <base>, not
// framed. An email's HTML shows in a sandboxed srcdoc frame (no scripts, an
// opaque origin), which inherits this policy and needs no frame-src source.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
	"media-src 'self' blob:; font-src 'self'; connect-src 'self'; frame-src 'none'; child-src 'none'; " +
	"worker-src 'none'; manifest-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"

// Prefix is where the app is served.
const Prefix = "/app/"

// Handler serves the app under /app/: a file of assets/ (its name holds its
// content's hash) with a year's cache, anything else the app's index.html
// (its routes, /app/inbox/…, are the app's to answer), never cached. Every
// answer carries CSP. /app/api/… is the sign-in API's, routed before this.
func Handler() http.Handler {
	files := Dist()
	index, err := fs.ReadFile(files, "index.html")
	if err != nil {
		panic("web: dist/index.html missing; run make web")
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			h.Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if r.URL.Path == "/app" {
			http.Redirect(w, r, Prefix, http.StatusFound)
			return
		}
		rel := strings.TrimPrefix(r.URL.Path, Prefix)
		if strings.HasPrefix(rel, "assets/") {
			name := path.Clean(rel)
			b, err := fs.ReadFile(files, name)
			if err != nil || !strings.HasPrefix(name, "assets/") {
				h.Set("Cache-Control", "no-store")
				http.NotFound(w, r)
				return
			}
			if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
				h.Set("Content-Type", ct)
			}
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
			_, _ = w.Write(b)
			return
		}
		h.Set("Content-Type", "text/html; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		_, _ = w.Write(index)
	})
}
