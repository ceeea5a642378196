package widget

import (
	"bytes"
	_ "embed"
	"net/http"
	"time"
)

//go:embed static/widget.js
var script []byte

// loaded is when this build's script was loaded, its Last-Modified.
var loaded = time.Now()

// ServeScript is GET /widget.js: the embeddable widget, cacheable for five
// minutes so a new release reaches pages soon.
func ServeScript(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Access-Control-Allow-Origin", "*")
	http.ServeContent(w, r, "widget.js", loaded, bytes.NewReader(script))
}
