package rest

import (
	"errors"
	"html/template"
	"log/slog"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph/mail"
)

// unsubscribePage is the small page of GET and POST /unsubscribe/{token}.
var unsubscribePage = template.Must(template.New("unsubscribe").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>Unsubscribe</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 32rem; margin: 4rem auto; padding: 0 1rem">
{{if .Bad}}<h1>This link is not valid</h1><p>It may be incomplete; copy the whole link from the email.</p>
{{else if .Done}}<h1>You are unsubscribed</h1><p>{{.Address}} will get no new email threads from this sender. Replies to conversations you started still reach you.</p>
{{else}}<h1>Unsubscribe {{.Address}}?</h1><p>You will get no new email threads from this sender.</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>
{{end}}</body></html>
`))

type unsubscribeView struct {
	Address   string
	Done, Bad bool
}

// unsubscribe serves the List-Unsubscribe link: GET shows the confirmation
// page (it never unsubscribes: mail scanners follow links), POST is the
// one-click opt-out of RFC 8058 (no login, no cookies).
func (s *Server) unsubscribe(w http.ResponseWriter, r *http.Request) {
	token := chi.URLParam(r, "token")
	u := s.Resolver.Unsubscriber
	var v unsubscribeView
	var err error
	if r.Method == http.MethodPost {
		v.Address, err = u.Unsubscribe(r.Context(), token)
		v.Done = err == nil
	} else {
		v.Address, v.Done, err = u.Address(r.Context(), token)
	}
	status := http.StatusOK
	switch {
	case errors.Is(err, mail.ErrBadToken):
		v, status = unsubscribeView{Bad: true}, http.StatusNotFound
	case err != nil:
		slog.Error("unsubscribe", "request_id", requestID(r.Context()), "err", err)
		http.Error(w, "Something went wrong; try again later.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	if err := unsubscribePage.Execute(w, v); err != nil {
		slog.Warn("unsubscribe page", "err", err)
	}
}
