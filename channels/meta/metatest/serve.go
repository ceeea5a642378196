package metatest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

type answer struct {
	status int
	body   []byte
	ctype  string
	header http.Header
}

func (s *Server) handler(host string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rec := Request{Host: host, Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: body}
		script := s.take(rec)
		var a answer
		if script != nil && script.Body != nil {
			a = answer{status: script.Status, body: encode(script.Body), ctype: "application/json", header: script.Header}
		} else {
			a = s.answer(rec, r.Host)
		}
		rec.Status, rec.Answer = a.status, a.body
		s.mu.Lock()
		s.requests = append(s.requests, rec)
		s.mu.Unlock()
		if script != nil && script.Delay > 0 {
			select {
			case <-time.After(script.Delay):
			case <-r.Context().Done():
				return
			}
		}
		if script != nil && script.Drop {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				_ = conn.Close()
			}
			return
		}
		for k, v := range a.header {
			w.Header()[k] = v
		}
		w.Header().Set("Content-Type", a.ctype)
		w.WriteHeader(a.status)
		_, _ = w.Write(a.body)
	})
}

func encode(v any) []byte {
	if b, ok := v.([]byte); ok {
		return b
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func (s *Server) take(rec Request) *Script {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, sc := range s.scripts {
		if sc.Method != rec.Method || (sc.Host != "" && sc.Host != rec.Host) ||
			!strings.HasSuffix(rec.Path, sc.PathSuffix) || (sc.Match != nil && !sc.Match(rec)) {
			continue
		}
		switch {
		case sc.Times == 0 || sc.Times == 1:
			s.scripts = append(s.scripts[:i:i], s.scripts[i+1:]...)
		case sc.Times > 1:
			sc.Times--
		}
		return sc
	}
	return nil
}

func jsonAnswer(status int, v any) answer {
	return answer{status: status, body: encode(v), ctype: "application/json"}
}

func (s *Server) next() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return s.n
}

// answer is the documented default for a request no script took.
func (s *Server) answer(rec Request, hostHeader string) answer {
	if a, ok := s.instagramAnswer(rec); ok {
		return a
	}
	seg := strings.Split(strings.Trim(rec.Path, "/"), "/")
	if rec.Method == http.MethodGet && len(seg) == 2 && seg[0] == "media-files" {
		return s.mediaFile(rec, seg[1])
	}
	if len(seg) < 2 || !version.MatchString(seg[0]) {
		return jsonAnswer(404, ErrorBody(100, 0, "Unknown path (no version segment)"))
	}
	rest := seg[1:]
	n := s.next()
	switch {
	case rec.Method == http.MethodPost && len(rest) == 2 && (rest[1] == "messages" || rest[1] == "marketing_messages"):
		return sendAnswer(rec, rest[1], n)
	case rec.Method == http.MethodPost && len(rest) == 2 && rest[1] == "media":
		return jsonAnswer(200, map[string]any{"id": fmt.Sprintf("10%014d", n)})
	case rec.Method == http.MethodPost && len(rest) == 2 && rest[1] == "subscribed_apps":
		// https://developers.facebook.com/docs/graph-api/reference/whats-app-business-account/subscribed_apps/
		if rec.Bearer() == "" {
			return jsonAnswer(400, ErrorBody(190, 0, "An access token is required to request this resource."))
		}
		return jsonAnswer(200, map[string]any{"success": true})
	case rec.Method == http.MethodPost && len(rest) == 2 && rest[1] == "replies":
		return jsonAnswer(200, map[string]any{"id": fmt.Sprintf("18%015d", n)})
	case rec.Method == http.MethodGet && len(rest) == 2 && rest[1] == "message_templates":
		return s.templatePage(rec, hostHeader, rest[0])
	case rec.Method == http.MethodGet && len(rest) == 1:
		return s.node(rec, hostHeader, rest[0])
	}
	return jsonAnswer(404, ErrorBody(100, 0, "Unsupported "+rec.Method+" request: "+rec.Path))
}

func sendAnswer(rec Request, endpoint string, n int) answer {
	data := rec.JSON()
	if recipient, ok := data["recipient"].(map[string]any); ok && data["messaging_product"] == nil {
		id, _ := recipient["id"].(string)
		if id == "" {
			id, _ = recipient["comment_id"].(string)
		}
		return jsonAnswer(200, map[string]any{"recipient_id": id, "message_id": fmt.Sprintf("mid.standin%06d", n)})
	}
	msg := map[string]any{"id": fmt.Sprintf("wamid.STANDIN%06d", n)}
	if endpoint == "marketing_messages" || data["type"] == "template" {
		msg["message_status"] = "accepted"
	}
	// A send to a phone (to, which wins when both are there) answers its
	// wa_id; one to a business-scoped user id (recipient) its user_id
	// (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids).
	contact := map[string]any{}
	if to, _ := data["to"].(string); to != "" {
		contact["input"], contact["wa_id"] = to, to
	} else if user, _ := data["recipient"].(string); user != "" {
		contact["input"], contact["user_id"] = user, user
	} else {
		return jsonAnswer(400, ErrorBody(131008, 0, "(#131008) Required parameter is missing"))
	}
	return jsonAnswer(200, map[string]any{"messaging_product": "whatsapp",
		"contacts": []any{contact}, "messages": []any{msg}})
}

func (s *Server) templatePage(rec Request, hostHeader, waba string) answer {
	s.mu.Lock()
	items := s.templates[waba]
	size := s.PageSize
	s.mu.Unlock()
	after, _ := strconv.Atoi(rec.Query.Get("after"))
	if limit, err := strconv.Atoi(rec.Query.Get("limit")); err == nil && limit < size {
		size = limit
	}
	size = max(size, 1)
	end := min(after+size, len(items))
	page := []map[string]any{}
	if after < end {
		page = items[after:end]
	}
	paging := map[string]any{"cursors": map[string]any{"before": strconv.Itoa(after), "after": strconv.Itoa(end)}}
	if end < len(items) {
		q := url.Values{}
		for k, v := range rec.Query {
			q[k] = append([]string(nil), v...)
		}
		q.Set("after", strconv.Itoa(end))
		paging["next"] = "http://" + hostHeader + rec.Path + "?" + q.Encode()
	}
	return jsonAnswer(200, map[string]any{"data": page, "paging": paging})
}

func (s *Server) node(rec Request, hostHeader, id string) answer {
	s.mu.Lock()
	m, isMedia := s.media[id]
	status, onboarded := s.onboarding[id]
	_, hasTemplates := s.templates[id]
	s.mu.Unlock()
	switch {
	case isMedia:
		if rec.Bearer() != m.token {
			return jsonAnswer(401, ErrorBody(190, 0, "Invalid OAuth access token"))
		}
		// file_size is a string, as Meta's schema has it.
		return jsonAnswer(200, map[string]any{"url": "http://" + hostHeader + "/media-files/" + id, "mime_type": m.mimeType,
			"sha256": m.sha256, "file_size": strconv.Itoa(len(m.content)), "id": id, "messaging_product": "whatsapp"})
	case onboarded || hasTemplates:
		out := map[string]any{"id": id}
		if strings.Contains(rec.Query.Get("fields"), "marketing_messages_onboarding_status") {
			if !onboarded {
				status = "ONBOARDED"
			}
			out["marketing_messages_onboarding_status"] = status
		}
		return jsonAnswer(200, out)
	}
	return jsonAnswer(404, ErrorBody(100, 0, "Unsupported get request: "+rec.Path))
}

func (s *Server) mediaFile(rec Request, id string) answer {
	s.mu.Lock()
	m, ok := s.media[id]
	s.mu.Unlock()
	if !ok {
		return jsonAnswer(404, ErrorBody(100, 0, "no such media"))
	}
	if rec.Bearer() != m.token {
		return jsonAnswer(401, ErrorBody(190, 0, "Invalid OAuth access token"))
	}
	return answer{status: 200, body: m.content, ctype: m.mimeType}
}
