package repo

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// The read of one conversation, its text made once, says what scopeWhere
// says for the scope, restrictions included.
func TestConversationStatementIsTheScopesRead(t *testing.T) {
	s := Scope{WorkspaceID: "ws_1", Livemode: true, Channels: []string{"email"}, WebsiteIDs: []string{"web_1"}}
	args := []any{"conv_1"}
	wantQuery := conversationSelect + ` WHERE c.id = $1 AND ` + scopeWhere(s, &args)
	query, got := ConversationStatement(s, "conv_1")
	if query != wantQuery {
		t.Errorf("query:\n%s\nwant:\n%s", query, wantQuery)
	}
	if !reflect.DeepEqual(got, args) {
		t.Errorf("args %#v, want %#v", got, args)
	}
}

// The scope's condition made once is the one formatted, at every position.
func TestScopeWhereTextsAreFormatted(t *testing.T) {
	for n := 1; n < len(scopeWhereTexts)+8; n++ {
		if got, want := scopeWhereAt(n), formatScopeWhere(n); got != want || !strings.Contains(got, fmt.Sprintf("$%d", n+3)) {
			t.Fatalf("scopeWhereAt(%d) = %q, want %q", n, got, want)
		}
	}
}

// A send's read, its texts made once, carries the scope's condition for
// the arguments idAndScope gives; in an optimistic run it takes no lock
// (lockFreeRead), in a transaction it locks the conversation.
func TestConversationForSendTexts(t *testing.T) {
	s := Scope{WorkspaceID: "ws_1", Livemode: true, Channels: []string{"email"}, WebsiteIDs: []string{"web_1"}}
	args := []any{"conv_1"}
	where := ` WHERE c.id = $1 AND ` + scopeWhere(s, &args)
	if got := idAndScope("conv_1", s); !reflect.DeepEqual(got, args) {
		t.Errorf("args %#v, want %#v", got, args)
	}
	for _, q := range []string{conversationForSendLocked, conversationForSendAtVersion} {
		if !strings.Contains(q, where) {
			t.Errorf("%s\ndoes not hold the scope's condition%s", q, where)
		}
	}
	if !lockFreeRead(conversationForSendAtVersion) || !strings.Contains(conversationForSendAtVersion, "c.xmin::text") {
		t.Error("the optimistic read locks, or does not read the version")
	}
	if lockFreeRead(conversationForSendLocked) || !strings.HasSuffix(conversationForSendLocked, " FOR UPDATE OF c") {
		t.Error("the transaction's read does not lock the conversation")
	}
}
