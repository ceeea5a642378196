package ai

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// standIn is an OpenAI-compatible /v1/chat/completions answering what the
// test scripts, as the API documents it, and recording the requests.
type standIn struct {
	mu       sync.Mutex
	requests []map[string]any
	headers  []http.Header
	answer   func(w http.ResponseWriter)
}

func (s *standIn) start(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			http.Error(w, `{"error":{"message":"bad json"}}`, http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.requests, s.headers = append(s.requests, body), append(s.headers, r.Header.Clone())
		answer := s.answer
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		answer(w)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

func completion(message string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) {
		io.WriteString(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",
			"choices":[{"index":0,"message":`+message+`,"finish_reason":"stop"}],
			"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
	}
}

func TestLLMResponder(t *testing.T) {
	s := &standIn{}
	url := s.start(t)
	llm := &LLM{URL: url, Model: "conf-model", APIKey: "sk-test", Client: &http.Client{Timeout: 300 * time.Millisecond}}
	in := Input{Instructions: "You answer for Acme. [instr]", Message: "how long does delivery take?",
		Knowledge: []Doc{{ID: "kb_hours", Question: "When are you open?", Answer: "9-17."},
			{ID: "kb_ship", Question: "How long does shipping take?", Answer: "Two days. [ship]"}},
		History: []Turn{{Customer: true, Text: "hi"}, {Customer: false, Text: "Hello! (ai)"}, {Customer: true, Text: "how long does delivery take?"}}}
	tests := []struct {
		name        string
		answer      func(w http.ResponseWriter)
		wantReply   string
		wantHandOff bool
		wantErr     bool
	}{
		{"content is the reply", completion(`{"role":"assistant","content":"It takes two days."}`), "It takes two days.", false, false},
		{"hand_off tool call", completion(`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"hand_off","arguments":"{}"}}]}`), "", true, false},
		{"[HANDOFF] content", completion(`{"role":"assistant","content":"[HANDOFF]"}`), "", true, false},
		{"server error", func(w http.ResponseWriter) { w.WriteHeader(500); io.WriteString(w, `{"error":{"message":"boom"}}`) }, "", false, true},
		{"not a completion", func(w http.ResponseWriter) { io.WriteString(w, `{"object":"list"}`) }, "", false, true},
		{"empty content", completion(`{"role":"assistant","content":""}`), "", false, true},
		{"timeout", func(w http.ResponseWriter) { time.Sleep(time.Second) }, "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.mu.Lock()
			s.answer = tt.answer
			s.mu.Unlock()
			d, err := llm.Respond(t.Context(), in)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if d.Reply != tt.wantReply || d.HandOff != tt.wantHandOff {
				t.Errorf("decision %+v, want reply %q hand-off %v", d, tt.wantReply, tt.wantHandOff)
			}
		})
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	req, hdr := s.requests[0], s.headers[0]
	if got := hdr.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization %q", got)
	}
	if req["model"] != "conf-model" {
		t.Errorf("model %v", req["model"])
	}
	msgs := req["messages"].([]any)
	system := msgs[0].(map[string]any)
	sys, _ := system["content"].(string)
	if system["role"] != "system" || !strings.Contains(sys, "[instr]") || !strings.Contains(sys, "Two days. [ship]") {
		t.Errorf("system message lacks the instructions or the best entry: %v", system)
	}
	if strings.Index(sys, "[ship]") > strings.Index(sys, "9-17.") && strings.Contains(sys, "9-17.") {
		t.Errorf("the best entry is not first: %q", sys)
	}
	var roles []string
	for _, m := range msgs[1:] {
		roles = append(roles, m.(map[string]any)["role"].(string))
	}
	if strings.Join(roles, ",") != "user,assistant,user" {
		t.Errorf("history roles %v", roles)
	}
	tools := req["tools"].([]any)
	fn := tools[0].(map[string]any)["function"].(map[string]any)
	if fn["name"] != "hand_off" {
		t.Errorf("tools %v", tools)
	}
}

// TestLLMPromptIsBounded: however long the history, instructions and
// entries, the request stays within the documented bounds.
func TestLLMPromptIsBounded(t *testing.T) {
	long := strings.Repeat("word ", 5000)
	in := Input{Instructions: long, Message: "word", Knowledge: make([]Doc, 50)}
	for i := range in.Knowledge {
		in.Knowledge[i] = Doc{ID: "kb", Question: long, Answer: long}
	}
	for range 40 {
		in.History = append(in.History, Turn{Customer: true, Text: long})
	}
	req := (&LLM{}).request(in)
	if n := len(req.Messages); n != 1+maxHistoryInPrompt {
		t.Errorf("%d messages, want %d", n, 1+maxHistoryInPrompt)
	}
	total := 0
	for _, m := range req.Messages {
		total += len(*m.Content)
	}
	limit := maxInstructionChars + 2000 + maxKnowledgeInPrompt*(2*maxEntryChars+10) + maxHistoryInPrompt*maxTurnChars
	if total > limit {
		t.Errorf("prompt is %d characters, bound %d", total, limit)
	}
}
