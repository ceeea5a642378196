package ai

import "testing"

// A subscriber sees the typing of its own workspace's visitors in an open
// chat, narrowed to one chat when it asks.
func TestTypingFor(t *testing.T) {
	n := TypingNotice{WorkspaceID: "ws_main", ConversationID: "conv_1", ContactID: "ct_1", WebsiteID: "web_main"}
	noChat := n
	noChat.ConversationID = ""
	for _, c := range []struct {
		name     string
		n        TypingNotice
		ws, conv string
		want     bool
	}{
		{"all chats of the workspace", n, "ws_main", "", true},
		{"that chat", n, "ws_main", "conv_1", true},
		{"another chat", n, "ws_main", "conv_2", false},
		{"another workspace", n, "ws_other", "", false},
		{"no open chat", noChat, "ws_main", "", false},
	} {
		if got := typingFor(c.n, c.ws, c.conv); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
