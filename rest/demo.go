package rest

import (
	"html/template"
	"net/http"
)

// DemoWebsite is the website of docs/demo-workspace.json, whose domains list
// the origin `make run` serves on, http://127.0.0.1:8080.
const DemoWebsite = "web_demo"

// demoPage is /demo in development: a page on the API's own origin with the
// widget, so the chat can be tried as soon as `make run` is up.
var demoPage = template.Must(template.New("demo").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>msgsvc demo shop</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family:system-ui,sans-serif;max-width:40em;margin:2em auto;line-height:1.5">
<h1>Demo Shop</h1>
<p>This page embeds the msgsvc chat widget for the website <code>{{.}}</code>:
open the chat at the bottom right and write. Its origin must be one of the
website's <code>domains</code> (docs/demo-workspace.json lists
<code>http://127.0.0.1:8080</code>); an error the API answers shows in the chat
and in the browser console.</p>
<p>Visitors' messages are live data: list them with the demo workspace's live key
(<code>svc_live_DemoKey0000000000000000000000001</code>),
<code>GET /v1/conversations?channel=website</code>, and answer with
<code>POST /v1/messages</code>; the reply appears here.</p>
<script src="/widget.js" data-website="{{.}}" async></script>
</body></html>
`))

func serveDemo(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = demoPage.Execute(w, DemoWebsite)
}
