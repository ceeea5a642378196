package rest_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// messagePages walks a conversation's messages over GraphQL, 2 a page, and
// returns the ids in the order served.
func messagePages(t *testing.T, api *resttest.API, workspace, conv string, newestFirst bool) []string {
	t.Helper()
	var ids []string
	after := "null"
	for range 50 {
		_, body := graphql(t, api, "admin-token", workspace, fmt.Sprintf(
			`{ messages(conversationId: %q, limit: 2, after: %s, newestFirst: %v) { items { id } hasMore nextCursor } }`,
			conv, after, newestFirst))
		data, _ := body["data"].(map[string]any)
		page, ok := data["messages"].(map[string]any)
		if !ok {
			t.Fatalf("messages: %v", body)
		}
		for _, n := range page["items"].([]any) {
			ids = append(ids, n.(map[string]any)["id"].(string))
		}
		if page["hasMore"] != true {
			return ids
		}
		after = fmt.Sprintf("%q", page["nextCursor"])
	}
	t.Fatal("more than 50 pages")
	return nil
}

func TestGraphQLMessagesNewestFirst(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	var conv, last string
	for i := range 7 {
		in := api.Inbound("instagram", "17841400000000001", fmt.Sprintf("message %d", i))
		conv = in["conversation"].(map[string]any)["id"].(string)
		last = in["message"].(map[string]any)["id"].(string)
	}
	oldest := messagePages(t, api, "ws_main", conv, false)
	newest := messagePages(t, api, "ws_main", conv, true)
	if len(newest) < 7 || newest[0] != last {
		t.Fatalf("newest first %v, want the last message %s first and all 7", newest, last)
	}
	if slices.Reverse(oldest); !slices.Equal(newest, oldest) {
		t.Fatalf("newest first %v, want the oldest-first pages reversed %v", newest, oldest)
	}
	_, body := graphql(t, api, "admin-token", "ws_other", `{ messages(conversationId: "`+conv+`", newestFirst: true) { items { id } } }`)
	if code := graphqlCode(body); code != "conversation_not_found" {
		t.Errorf("another workspace's conversation: %v", body)
	}
}
