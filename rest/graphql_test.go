package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql/introspection"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func graphql(t *testing.T, api *resttest.API, token, workspace, query string) (int, map[string]any) {
	t.Helper()
	return graphqlMode(t, api, token, workspace, false, query)
}

// graphqlMode is graphql on the live data (Msgsvc-Livemode: true) or the
// test data.
func graphqlMode(t *testing.T, api *resttest.API, token, workspace string, live bool, query string) (int, map[string]any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query})
	req, _ := http.NewRequest("POST", api.HTTP.URL+"/graphql", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Msgsvc-Workspace", workspace)
	if live {
		req.Header.Set("Msgsvc-Livemode", "true")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out
}

func TestGraphQLNeedsTheAdminToken(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	status, body := graphql(t, api, "wrong", "ws_main", `{ usage { period } }`)
	if status != 401 || body["error"].(map[string]any)["code"] != "invalid_api_key" {
		t.Errorf("wrong token: %d %v", status, body)
	}
	status, body = graphql(t, api, api.Key("test_all"), "ws_main", `{ usage { period } }`)
	if status != 401 {
		t.Errorf("an API key opened /graphql: %d %v", status, body)
	}
}

// TestGraphQLBatchesContacts: 100 conversations with their contacts cost a
// bounded number of statements, not one per conversation.
func TestGraphQLBatchesContacts(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	for i := 0; i < 100; i++ {
		api.Inbound("whatsapp", fmt.Sprintf("+1555020%04d", i), "hi")
	}
	before := api.Store.Statements()
	status, body := graphql(t, api, "admin-token", "ws_main",
		`{ conversations(limit: 100) { items { id contact { name } customer { id phone optOuts { whatsapp } } } hasMore } }`)
	used := api.Store.Statements() - before
	if status != 200 || body["errors"] != nil {
		t.Fatalf("%d %v", status, body)
	}
	items := body["data"].(map[string]any)["conversations"].(map[string]any)["items"].([]any)
	if len(items) != 100 {
		t.Fatalf("%d items", len(items))
	}
	for _, item := range items {
		if item.(map[string]any)["customer"] == nil {
			t.Fatalf("conversation without its customer: %v", item)
		}
	}
	if used > 10 { // unbatched it would be 101
		t.Errorf("listing 100 conversations with contacts ran %d statements", used)
	}
}

func TestGraphQLErrorsCarryTheCode(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	_, body := graphql(t, api, "admin-token", "ws_main", `{ conversation(id: "conv_missing") { id } }`)
	errs, _ := body["errors"].([]any)
	if len(errs) != 1 || errs[0].(map[string]any)["extensions"].(map[string]any)["code"] != "conversation_not_found" {
		t.Errorf("errors %v", body["errors"])
	}
}

// A message the customer unsent (Instagram's is_deleted) says so over
// GraphQL as over REST; the others say false.
func TestGraphQLMessageDeleted(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	in := api.Inbound("instagram", "17841400000000001", "first")
	conv := in["conversation"].(map[string]any)["id"].(string)
	unsent := in["message"].(map[string]any)["id"].(string)
	api.Inbound("instagram", "17841400000000001", "second")
	if _, err := api.Store.DB.Exec(`UPDATE messages SET deleted = true WHERE id = $1`, unsent); err != nil {
		t.Fatal(err)
	}
	_, body := graphql(t, api, "admin-token", "ws_main", `{ messages(conversationId: "`+conv+`") { items { id text deleted } } }`)
	data, _ := body["data"].(map[string]any)
	page, _ := data["messages"].(map[string]any)
	nodes, _ := page["items"].([]any)
	if len(nodes) != 2 {
		t.Fatalf("messages %v", body)
	}
	for _, n := range nodes {
		m := n.(map[string]any)
		if want := m["id"] == unsent; m["deleted"] != want {
			t.Errorf("%s (%v): deleted %v, want %v", m["id"], m["text"], m["deleted"], want)
		}
	}
	rest := api.Want(api.Do("GET", "/v1/messages/"+unsent, "test_all", nil), 200, "").Data()
	if rest["deleted"] != true {
		t.Errorf("REST shows %v", rest["deleted"])
	}
}

func graphqlCode(body map[string]any) string {
	errs, _ := body["errors"].([]any)
	if len(errs) == 0 {
		return ""
	}
	ext, _ := errs[0].(map[string]any)["extensions"].(map[string]any)
	code, _ := ext["code"].(string)
	return code
}

// Introspection answers the admin token (GraphiQL's explorer, codegen).
func TestGraphQLIntrospection(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	status, body := graphql(t, api, "admin-token", "ws_main", `{ __schema { queryType { name } types { name } } }`)
	if status != 200 || body["errors"] != nil {
		t.Fatalf("%d %v", status, body)
	}
	schema := body["data"].(map[string]any)["__schema"].(map[string]any)
	if schema["queryType"].(map[string]any)["name"] != "Query" || !strings.Contains(fmt.Sprint(schema["types"]), "Conversation") {
		t.Errorf("schema %v", schema)
	}
	// The full query GraphiQL and schema tools send passes every limit.
	status, body = graphql(t, api, "admin-token", "ws_main", introspection.Query)
	if types, _ := body["data"].(map[string]any)["__schema"].(map[string]any)["types"].([]any); status != 200 || body["errors"] != nil || len(types) < 20 {
		t.Errorf("the introspection query: %d %.500v", status, body)
	}
}

// Each limit refuses before anything runs: one error naming it, no data,
// and not one statement.
func TestGraphQLLimits(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	aliases := func(n int, field string) string {
		var b strings.Builder
		b.WriteString("{")
		for i := range n {
			fmt.Fprintf(&b, " a%d: %s", i, field)
		}
		return b.String() + " }"
	}
	page := `conversations(limit: 100) { items { customer { optOuts { whatsapp instagram email } } tags } }`
	// fragments spread in fragments: 2^12 fields from a few hundred bytes
	bomb := "fragment F0 on Usage { period }\n"
	for i := 1; i <= 12; i++ {
		bomb += fmt.Sprintf("fragment F%d on Usage { ...F%d ...F%d }\n", i, i-1, i-1)
	}
	bomb += "{ usage { ...F12 } }"
	for _, c := range []struct{ name, query, code string }{
		{"size", "{ usage { period " + strings.Repeat(" ", 16<<10) + "} }", "QUERY_TOO_LARGE"},
		{"tokens", "{ " + strings.Repeat("a ", 4100) + "}", "GRAPHQL_PARSE_FAILED"},
		{"fields", "{ usage { " + strings.Repeat("period ", 1001) + "} }", "TOO_MANY_FIELDS"},
		{"aliases", aliases(31, "usage { period }"), "TOO_MANY_ALIASES"},
		{"fragments", bomb, "TOO_MANY_FIELDS"},
		// 15 pages of 100 conversations with customers: about 10,500
		{"complexity", aliases(15, page), "COMPLEXITY_LIMIT_EXCEEDED"},
	} {
		before := api.Store.Statements()
		status, body := graphql(t, api, "admin-token", "ws_main", c.query)
		if got := graphqlCode(body); got != c.code || body["data"] != nil {
			t.Errorf("%s: %d %v, want %s", c.name, status, body, c.code)
		}
		if n := api.Store.Statements() - before; n != 0 {
			t.Errorf("%s: %d statements ran", c.name, n)
		}
	}
	// Under every limit, the same shapes run.
	if status, body := graphql(t, api, "admin-token", "ws_main", aliases(30, "usage { period }")); status != 200 || body["errors"] != nil {
		t.Errorf("30 aliases: %d %v", status, body)
	}
	if status, body := graphql(t, api, "admin-token", "ws_main", aliases(14, page)); status != 200 || body["errors"] != nil {
		t.Errorf("14 pages of 100: %d %v", status, body)
	}
}
