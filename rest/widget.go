package rest

import (
	"context"
	"log/slog"
	"math"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/go-chi/chi/v5"
	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/widget"
)

// Widget is website chat's visitor API, mounted at /widget/v1,
// and the widget script at /widget.js.
type Widget struct {
	Visitors *visitor.Service
	Hub      *widget.Hub
	Publish  widget.Publish
	// Origins tells whether an Origin is a domain of some website (CORS
	// preflights); repo.Store is one.
	Origins interface {
		OriginAllowed(ctx context.Context, origin string) (bool, error)
	}
	// Limiter keeps the visitor API's limits; nil means none.
	Limiter MinuteLimiter
	// RateLimit is visitor messages per minute per visitor; requests per
	// minute per IP are four times it (MSGSVC_WIDGET_RATE_LIMIT).
	RateLimit int
}

// MinuteLimiter spends one unit of a per-minute limit of a key.
type MinuteLimiter interface {
	AllowPerMinute(ctx context.Context, key string, perMinute int) (retryAfter time.Duration, err error)
}

// AllowPerMinute spends one unit of a per-minute GCRA limit in Redis, or
// in the process while Redis does not answer (see RedisLimiter).
func (l *RedisLimiter) AllowPerMinute(ctx context.Context, key string, perMinute int) (retry time.Duration, err error) {
	err = l.decide(ctx, func(ctx context.Context) error {
		d, _, _, err := l.allowInRedis(ctx, 1, window{"rl:w:" + key, perMinute, time.Minute})
		retry = d.RetryAfter
		return err
	}, func(ctx context.Context) error {
		retry, err = l.fallback.AllowPerMinute(ctx, key, perMinute)
		return err
	})
	return retry, err
}

func (s *Server) mountWidget(r chi.Router) {
	wg := s.Widget
	if wg == nil {
		return
	}
	r.Get("/widget.js", widget.ServeScript)
	r.Route("/widget/v1", func(v chi.Router) {
		v.Use(wg.cors, wg.perIP, limitWidgetBody)
		v.Options("/*", wg.preflight)
		v.Post("/sessions", wg.handle(http.StatusOK, wg.session))
		v.Post("/messages", wg.handle(http.StatusCreated, wg.message))
		v.Post("/rating", wg.handle(http.StatusCreated, wg.rating))
		v.Get("/ws", wg.ws)
	})
}

// cors answers the request's Origin in Access-Control-Allow-Origin (never
// *) when it is a domain of some website; each endpoint then checks it
// against its own website's domains, and a refusal drops the header.
func (wg *Widget) cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Origin")
		if origin := r.Header.Get("Origin"); origin != "" {
			ok, err := wg.Origins.OriginAllowed(r.Context(), strings.TrimRight(origin, "/"))
			if err != nil {
				writeError(w, r, err)
				return
			}
			if ok {
				w.Header().Set("Access-Control-Allow-Origin", origin)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// preflight answers an OPTIONS request: 204 with the allowed methods and
// headers for a website's Origin, else 403 without CORS headers.
func (wg *Widget) preflight(w http.ResponseWriter, r *http.Request) {
	if w.Header().Get("Access-Control-Allow-Origin") == "" {
		writeError(w, r, apierr.New(apierr.WebsiteNotAllowed, "Origin %q is not a domain of any website.", r.Header.Get("Origin")))
		return
	}
	w.Header().Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
	w.Header().Set("Access-Control-Allow-Headers", "Authorization, Content-Type")
	w.Header().Set("Access-Control-Max-Age", "600")
	w.WriteHeader(http.StatusNoContent)
}

// perIP keeps the per-IP limit of the visitor API: four times the
// per-visitor message limit, per minute.
func (wg *Widget) perIP(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodOptions {
			if err := wg.limit(r.Context(), "ip:"+clientIP(r).String(), 4*wg.RateLimit, "this address"); err != nil {
				writeWidgetError(w, r, err)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func (wg *Widget) limit(ctx context.Context, key string, perMinute int, who string) error {
	if wg.Limiter == nil || perMinute <= 0 {
		return nil
	}
	retry, err := wg.Limiter.AllowPerMinute(ctx, key, perMinute)
	if err != nil || retry <= 0 {
		return err
	}
	e := apierr.New(apierr.RateLimited, "Too many requests from %s; retry after %s.", who, seconds(int(math.Ceil(retry.Seconds()))))
	e.RetryAfter = retry
	return e
}

// writeWidgetError answers an error; a refused Origin gets no CORS header.
func writeWidgetError(w http.ResponseWriter, r *http.Request, err error) {
	if e, ok := apierr.As(err); ok && e.Code == apierr.WebsiteNotAllowed {
		w.Header().Del("Access-Control-Allow-Origin")
	}
	writeError(w, r, err)
}

func (wg *Widget) handle(status int, h func(r *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		out, err := h(r)
		if err != nil {
			writeWidgetError(w, r, err)
			return
		}
		writeJSON(w, status, dataBody{out})
	}
}

func origin(r *http.Request) string { return strings.TrimRight(r.Header.Get("Origin"), "/") }

func (wg *Widget) session(r *http.Request) (any, error) {
	var in visitor.SessionInput
	if err := decodeWidget(r, &in); err != nil {
		return nil, err
	}
	return wg.Visitors.Session(r.Context(), in, origin(r))
}

// visitor is the caller of Authorization: Visitor <token>, on a page of its
// website.
func (wg *Widget) visitor(r *http.Request, token string) (*repo.Visitor, error) {
	if token == "" {
		token, _ = strings.CutPrefix(r.Header.Get("Authorization"), "Visitor ")
	}
	return wg.Visitors.VisitorAt(r.Context(), strings.TrimSpace(token), origin(r))
}

// visitorMessageInput is the body of POST /widget/v1/messages.
type visitorMessageInput struct {
	Text *string `json:"text"`
}

func (wg *Widget) message(r *http.Request) (any, error) {
	v, err := wg.visitor(r, "")
	if err != nil {
		return nil, err
	}
	var in visitorMessageInput
	if err := decodeWidget(r, &in); err != nil {
		return nil, err
	}
	if in.Text == nil {
		return nil, apierr.New(apierr.TextRequired, "text is required.")
	}
	if err := visitor.CheckText(*in.Text); err != nil {
		return nil, err
	}
	if err := wg.limit(r.Context(), "visitor:"+v.ID, wg.RateLimit, "this visitor"); err != nil {
		return nil, err
	}
	return wg.Visitors.Send(r.Context(), v, *in.Text)
}

func (wg *Widget) rating(r *http.Request) (any, error) {
	v, err := wg.visitor(r, "")
	if err != nil {
		return nil, err
	}
	var in visitor.RatingInput
	if err := decodeWidget(r, &in); err != nil {
		return nil, err
	}
	return wg.Visitors.Rate(r.Context(), v, in)
}

// ws upgrades GET /widget/v1/ws?token=… to the widget's WebSocket once the
// token and the Origin check out.
func (wg *Widget) ws(w http.ResponseWriter, r *http.Request) {
	v, err := wg.visitor(r, r.URL.Query().Get("token"))
	if err != nil {
		writeWidgetError(w, r, err)
		return
	}
	site, err := wg.Visitors.Website(r.Context(), v.WebsiteID, origin(r))
	if err != nil {
		writeWidgetError(w, r, err)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{OriginPatterns: site.Domains})
	if err != nil {
		return // Accept has answered
	}
	// The request is over once upgraded (logged, its handler returned):
	// the socket is served on by a goroutine of its own, with none of the
	// request's stack, until either side closes or the hub stops.
	ctx := context.WithoutCancel(r.Context())
	go func() {
		defer func() {
			if p := recover(); p != nil {
				c.CloseNow()
				slog.Error("widget socket", "request_id", requestID(ctx), "err", panicError(p))
			}
		}()
		wg.Hub.Serve(ctx, c, v, wg.Publish)
	}()
}
