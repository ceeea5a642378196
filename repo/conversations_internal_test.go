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
