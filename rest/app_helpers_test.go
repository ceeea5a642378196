package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// codeSink stands in for the SMTP relay: it keeps the last code mailed to
// each address.
type codeSink struct {
	mu    sync.Mutex
	codes map[string]string
	mails map[string]int
}

var sixDigits = regexp.MustCompile(`\b\d{6}\b`)

func (s *codeSink) SendNow(_ context.Context, to, subject, _ string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.codes[to] = sixDigits.FindString(subject)
	s.mails[to]++
	return nil
}

// mailed is how many code mails an address got.
func (s *codeSink) mailed(to string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mails[to]
}

// code waits for the code mailed to an address (mails go out in the
// background) and forgets it.
func (s *codeSink) code(t *testing.T, to string) string {
	t.Helper()
	var code string
	resttest.Eventually(t, "a code mailed to "+to, func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		code = s.codes[to]
		delete(s.codes, to)
		return code != ""
	})
	return code
}

// appAPI is the API with its codes mailed to a sink, at a public URL.
func appAPI(t *testing.T, publicURL string) (*resttest.API, *codeSink) {
	sink := &codeSink{codes: map[string]string{}, mails: map[string]int{}}
	api := resttest.New(t, func(a *resttest.API) {
		a.Config.MemberMail = sink
		a.Server.PublicURL = publicURL
	})
	return api, sink
}

// appResponse is an answer of the sign-in API or of /graphql.
type appResponse struct {
	Status int
	Header http.Header
	Body   map[string]any
}

func (r appResponse) code() string {
	e, _ := r.Body["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// appDo sends a request with a JSON body; header is name, value pairs
// ("Cookie", …).
func appDo(t *testing.T, api *resttest.API, method, path string, body any, header ...string) appResponse {
	t.Helper()
	var rd *strings.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = strings.NewReader(string(raw))
	} else {
		rd = strings.NewReader("")
	}
	req, _ := http.NewRequest(method, api.HTTP.URL+path, rd)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := appResponse{Status: resp.StatusCode, Header: resp.Header}
	_ = json.NewDecoder(resp.Body).Decode(&out.Body)
	return out
}

// signIn signs a member in and returns her Cookie header.
func signIn(t *testing.T, api *resttest.API, sink *codeSink, email string) string {
	t.Helper()
	if r := appDo(t, api, "POST", "/app/api/sign-in/code", map[string]any{"email": email}); r.Status != 202 {
		t.Fatalf("sign-in code for %s: %d %v", email, r.Status, r.Body)
	}
	r := appDo(t, api, "POST", "/app/api/sign-in", map[string]any{"email": email, "code": sink.code(t, email)})
	if r.Status != 200 {
		t.Fatalf("sign-in of %s: %d %v", email, r.Status, r.Body)
	}
	c := (&http.Response{Header: r.Header}).Cookies()
	if len(c) != 1 {
		t.Fatalf("sign-in set %d cookies", len(c))
	}
	return c[0].Name + "=" + c[0].Value
}

// asMember runs a GraphQL operation with a session cookie (test data
// unless live) and returns data and the first error's code.
func asMember(t *testing.T, api *resttest.API, cookie, query string, header ...string) (map[string]any, string) {
	t.Helper()
	r := appDo(t, api, "POST", "/graphql", map[string]any{"query": query}, append([]string{"Cookie", cookie}, header...)...)
	data, _ := r.Body["data"].(map[string]any)
	if r.Status != 200 && r.code() != "" {
		return nil, r.code()
	}
	if errs, _ := r.Body["errors"].([]any); len(errs) > 0 {
		ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
		code, _ := ext["code"].(string)
		if code == "" {
			code = "error: " + errs[0].(map[string]any)["message"].(string)
		}
		return data, code
	}
	return data, ""
}
