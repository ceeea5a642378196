// Package metatest is a stand-in of the Meta Graph API for Go tests: the
// WhatsApp Cloud API and Instagram messaging as channels.md sections 1-2
// document them. Two listeners share one state, Graph (for
// MSGSVC_META_GRAPH_URL) and Instagram (for MSGSVC_INSTAGRAM_GRAPH_URL).
// Every request is recorded (host, path, bearer, body) so a test asserts
// exactly what Meta would receive; answers come from queued scripts first,
// then from the documented defaults:
//
//	POST /{ver}/{id}/messages            WhatsApp: {messaging_product, contacts, messages:[{id: wamid}]}
//	                                     Instagram (body has "recipient"): {recipient_id, message_id}
//	POST /{ver}/{id}/marketing_messages  as messages, with message_status "accepted"
//	POST /{ver}/{id}/media               {id}
//	POST /{ver}/{comment_id}/replies     {id}
//	POST /{ver}/{waba_id}/subscribed_apps  {success: true} (the token required)
//	GET  /{ver}/{waba_id}/message_templates  Templates, PageSize a page, paging.next
//	GET  /{ver}/{waba_id}?fields=...     {id, marketing_messages_onboarding_status}
//	GET  /{ver}/{media_id}               media info (the media's token required)
//	GET  /media-files/{media_id}         the bytes (the same token required)
package metatest

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/meta"
)

// Hosts of a Request.
const (
	HostMeta      = "meta"
	HostInstagram = "instagram"
)

// Version is the path version Config uses.
const Version = "v24.0"

// Request is one request the stand-in received, and what it answered.
type Request struct {
	Host   string
	Method string
	// Path is without the query string.
	Path   string
	Query  url.Values
	Header http.Header
	Body   []byte
	Status int
	Answer []byte
}

// Bearer is the token of the Authorization header ("" without one).
func (r Request) Bearer() string {
	v, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return v
}

// JSON is the body decoded (nil when it is not JSON).
func (r Request) JSON() map[string]any {
	var v map[string]any
	if json.Unmarshal(r.Body, &v) != nil {
		return nil
	}
	return v
}

// AnswerJSON is the answer decoded.
func (r Request) AnswerJSON() map[string]any {
	var v map[string]any
	if json.Unmarshal(r.Answer, &v) != nil {
		return nil
	}
	return v
}

// Part is one part of a multipart body.
type Part struct {
	Filename    string
	ContentType string
	Content     []byte
}

// Multipart is the parts of a multipart/form-data body by field name.
func (r Request) Multipart() (map[string]Part, error) {
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return nil, err
	}
	mr := multipart.NewReader(bytes.NewReader(r.Body), params["boundary"])
	parts := map[string]Part{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return parts, nil
		}
		if err != nil {
			return nil, err
		}
		content, err := io.ReadAll(p)
		if err != nil {
			return nil, err
		}
		parts[p.FormName()] = Part{Filename: p.FileName(), ContentType: p.Header.Get("Content-Type"), Content: content}
	}
}

// Script answers matching requests instead of the defaults.
type Script struct {
	// Method defaults to POST.
	Method string
	// Host is HostMeta, HostInstagram or "" for both.
	Host string
	// PathSuffix matches the end of the path ("" any path).
	PathSuffix string
	Match      func(Request) bool
	Status     int
	// Body is the answer (JSON-encoded unless []byte); nil keeps the
	// default answer (a script that only delays).
	Body   any
	Header http.Header
	// Delay is waited before answering (or until the caller gives up).
	Delay time.Duration
	// Drop closes the connection after reading the request, with no
	// answer (after Delay, if any): the request reached Meta, its answer
	// never came.
	Drop bool
	// Times is how many requests it answers: 0 once, -1 always.
	Times int
}

// Server is the stand-in.
type Server struct {
	Graph     *httptest.Server
	Instagram *httptest.Server
	// PageSize is how many templates a page lists (default 2).
	PageSize int

	mu         sync.Mutex
	requests   []Request
	scripts    []*Script
	templates  map[string][]map[string]any
	onboarding map[string]string
	media      map[string]media
	ig         igState
	n          int
}

type media struct {
	content  []byte
	mimeType string
	token    string
	sha256   string
}

// New starts the stand-in; t.Cleanup closes it.
func New(t testing.TB) *Server {
	s := &Server{PageSize: 2, templates: map[string][]map[string]any{}, onboarding: map[string]string{}, media: map[string]media{}}
	s.Graph = httptest.NewServer(s.handler(HostMeta))
	s.Instagram = httptest.NewServer(s.handler(HostInstagram))
	t.Cleanup(func() {
		s.Graph.Close()
		s.Instagram.Close()
	})
	return s
}

// Config points both hosts at the stand-in, with Version and the timeout.
func (s *Server) Config(timeout time.Duration) meta.Config {
	return meta.Config{GraphURL: s.Graph.URL, InstagramURL: s.Instagram.URL, Version: Version, Timeout: timeout}
}

// Queue adds a script.
func (s *Server) Queue(sc Script) {
	if sc.Method == "" {
		sc.Method = http.MethodPost
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scripts = append(s.scripts, &sc)
}

// Fail answers the next POST whose path ends in pathSuffix with Meta's
// error envelope for code (and subcode when not 0).
func (s *Server) Fail(pathSuffix string, httpStatus, code, subcode int, message string) {
	s.Queue(Script{PathSuffix: pathSuffix, Status: httpStatus, Body: ErrorBody(code, subcode, message)})
}

// ErrorBody is Meta's error envelope.
func ErrorBody(code, subcode int, message string) map[string]any {
	if message == "" {
		message = fmt.Sprintf("(#%d) stand-in error %d", code, code)
	}
	e := map[string]any{"message": message, "type": "OAuthException", "code": code, "fbtrace_id": "StandIn" + strconv.Itoa(code)}
	if subcode != 0 {
		e["error_subcode"] = subcode
	}
	if strings.HasPrefix(strconv.Itoa(code), "13") {
		e["error_data"] = map[string]any{"messaging_product": "whatsapp", "details": fmt.Sprintf("stand-in details %d", code)}
	}
	return map[string]any{"error": e}
}

// SetTemplates sets the templates GET /{waba}/message_templates lists.
func (s *Server) SetTemplates(waba string, items ...map[string]any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.templates[waba] = items
}

// SetOnboarding sets a WABA's marketing_messages_onboarding_status (default
// ONBOARDED for a WABA with templates).
func (s *Server) SetOnboarding(waba, status string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.onboarding[waba] = status
}

// Template is a template as the list shows it (HEADER, BODY, FOOTER).
func Template(name, language, status, category, body string) map[string]any {
	sum := sha256.Sum256([]byte(name + "/" + language))
	return map[string]any{"name": name, "language": language, "status": status, "category": category,
		"id": strconv.FormatUint(uint64(sum[0])<<24|uint64(sum[1])<<16|uint64(sum[2])<<8|uint64(sum[3]), 10),
		"components": []any{
			map[string]any{"type": "HEADER", "format": "TEXT", "text": "Stand-in"},
			map[string]any{"type": "BODY", "text": body},
			map[string]any{"type": "FOOTER", "text": "Reply STOP to opt out"},
		}}
}

// AddMedia serves a media object to the bearer token; sha256 "" is the true
// digest (standard base64, as Meta sends it).
func (s *Server) AddMedia(id string, content []byte, mimeType, token, sha string) {
	if sha == "" {
		sum := sha256.Sum256(content)
		sha = base64.StdEncoding.EncodeToString(sum[:])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.media[id] = media{content: content, mimeType: mimeType, token: token, sha256: sha}
}

// Requests are the recorded requests that match (nil: all), oldest first.
func (s *Server) Requests(match func(Request) bool) []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Request
	for _, r := range s.requests {
		if match == nil || match(r) {
			out = append(out, r)
		}
	}
	return out
}

var version = regexp.MustCompile(`^v\d+\.\d+$`)

// SameJSON fails the test unless got (a recorded body) is the JSON want.
func SameJSON(t testing.TB, got map[string]any, want string) {
	t.Helper()
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Fatalf("body\n got %s\nwant %s", g, want)
	}
}
