package rest

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"time"

	"github.com/99designs/gqlgen/graphql/playground"
)

// graphiqlAssets are the GraphiQL page's scripts and styles, from the npm
// registry at pinned versions (graphiql 4.1.2, react and react-dom 18.2.0,
// the versions gqlgen's page names), byte for byte; their licences are in
// graphiql/LICENSES.txt. Embedded, the page needs no CDN and works offline.
//
//go:embed graphiql/*.js graphiql/*.css
var graphiqlAssets embed.FS

// graphiqlAssetsPath is where the assets are served, beside the page.
const graphiqlAssetsPath = PlaygroundPath + "/assets/"

// graphiqlLoaded is the assets' Last-Modified: when this build started.
var graphiqlLoaded = time.Now()

// graphiqlAsset serves one embedded asset. They are public files, served
// without the admin token, and only where the playground is.
func graphiqlAsset(w http.ResponseWriter, r *http.Request) {
	name := path.Base(r.URL.Path)
	b, err := graphiqlAssets.ReadFile("graphiql/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	http.ServeContent(w, r, name, graphiqlLoaded, bytes.NewReader(b))
}

// sri is an asset's Subresource Integrity value.
func sri(name string) string {
	b, err := graphiqlAssets.ReadFile("graphiql/" + name)
	if err != nil {
		panic(err) // the embed pattern above holds every name used here
	}
	sum := sha256.Sum256(b)
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}

// playground is GraphiQL over /graphql. Only a caller holding the admin
// token gets the page, so it may prefill the headers /graphql needs, the
// token included, for the demo workspace `make run` seeds. The page chooses
// the data: live (website and email chats are live data only) unless
// ?livemode=false asks for the sandbox's; a bar at its top switches.
func (s *Server) playground() http.Handler {
	data := map[bool]string{true: "live data", false: "sandbox data"}
	page := func(livemode bool) []byte {
		rec := httptest.NewRecorder()
		playground.Handler("msgsvc GraphQL ("+data[livemode]+")", "/graphql",
			playground.WithGraphiqlVersion(graphiqlAssetsPath+"graphiql.min.js", graphiqlAssetsPath+"graphiql.min.css",
				sri("graphiql.min.js"), sri("graphiql.min.css")),
			playground.WithGraphiqlReactVersion(graphiqlAssetsPath+"react.production.min.js",
				graphiqlAssetsPath+"react-dom.production.min.js",
				sri("react.production.min.js"), sri("react-dom.production.min.js")),
			playground.WithStoragePrefix(fmt.Sprintf("msgsvc-livemode-%t:", livemode)),
			playground.WithGraphiqlUiHeaders(map[string]string{
				"Authorization":    "Bearer " + s.AdminToken,
				"Msgsvc-Workspace": "ws_demo",
				"Msgsvc-Livemode":  fmt.Sprint(livemode),
			}))(rec, httptest.NewRequest(http.MethodGet, PlaygroundPath, nil))
		bar := fmt.Sprintf(`<body><div style="position:fixed;top:0;right:0;z-index:10;padding:4px 10px;`+
			`font:13px system-ui,sans-serif;background:#fff8c5;border:1px solid #d4a72c">Showing %s: `+
			`<a href="?livemode=%t">switch to %s</a></div>`, data[livemode], !livemode, data[!livemode])
		return bytes.Replace(rec.Body.Bytes(), []byte("<body>"), []byte(bar), 1)
	}
	live, sandbox := page(true), page(false)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if r.URL.Query().Get("livemode") == "false" {
			_, _ = w.Write(sandbox)
			return
		}
		_, _ = w.Write(live)
	})
}
