package ai

import (
	"encoding/json"
	"os"
	"testing"
)

type retrievalSet struct {
	Entries   []Doc `json:"entries"`
	Questions []struct {
		Text string `json:"text"`
		Want string `json:"want"` // "" : no entry fits, the AI must hand off
	} `json:"questions"`
}

// TestRetrievalHitRate ranks the labelled questions of testdata (customers'
// words, not the entries') and prints the hit rate: a question is a hit when
// the built-in responder answers with its entry, or hands off when none
// fits. It fails below 80 %.
func TestRetrievalHitRate(t *testing.T) {
	raw, err := os.ReadFile("testdata/retrieval.json")
	if err != nil {
		t.Fatal(err)
	}
	var set retrievalSet
	if err := json.Unmarshal(raw, &set); err != nil {
		t.Fatal(err)
	}
	ix := NewIndex(set.Entries)
	hits := 0
	for _, q := range set.Questions {
		got := ""
		if h, ok := ix.Best(q.Text); ok {
			got = h.Doc.ID
		}
		if got == q.Want {
			hits++
		} else {
			t.Logf("miss: %q answered %q, want %q", q.Text, got, q.Want)
		}
	}
	rate := float64(hits) / float64(len(set.Questions))
	t.Logf("retrieval hit rate: %d/%d = %.0f%% (threshold %.2f)", hits, len(set.Questions), 100*rate, Threshold)
	if rate < 0.8 {
		t.Errorf("hit rate %.0f%% is below 80%%", 100*rate)
	}
}

func TestAsksForPerson(t *testing.T) {
	tests := []struct {
		text string
		want bool
	}{
		{"Can I talk to a human, please?", true},
		{"AGENT", true},
		{"I want a real Person!", true},
		{"connect me with a representative", true},
		{"humanity is great", false},
		{"my travel agency booked it", false},
		{"personal details", false},
		{"When are you open?", false},
	}
	for _, tt := range tests {
		if got := AsksForPerson(tt.text); got != tt.want {
			t.Errorf("AsksForPerson(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
}

func TestBuiltinResponder(t *testing.T) {
	docs := []Doc{{ID: "kb_hours", Question: "When are you open?", Answer: "Mon-Fri 9-17."},
		{ID: "kb_ship", Question: "How long does shipping take?", Answer: "Two days."}}
	tests := []struct {
		msg         string
		wantReply   string
		wantHandOff bool
	}{
		{"When are you open?", "Mon-Fri 9-17.", false},
		{"what are your opening hours", "Mon-Fri 9-17.", false},
		{"how long until my delivery arrives", "Two days.", false},
		{"I need a human about shipping", "", true},
		{"tell me a joke about penguins", "", true},
		{"", "", true},
	}
	for _, tt := range tests {
		d, err := Builtin{}.Respond(t.Context(), Input{Message: tt.msg, Knowledge: docs})
		if err != nil {
			t.Fatal(err)
		}
		if d.Reply != tt.wantReply || d.HandOff != tt.wantHandOff {
			t.Errorf("%q: got %+v, want reply %q hand-off %v", tt.msg, d, tt.wantReply, tt.wantHandOff)
		}
	}
	if d, _ := (Builtin{}).Respond(t.Context(), Input{Message: "When are you open?"}); !d.HandOff {
		t.Errorf("no knowledge: got %+v, want a hand-off", d)
	}
}
