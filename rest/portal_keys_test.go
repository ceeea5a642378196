package rest_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

func gqlData(t *testing.T, api *resttest.API, workspace, query string) map[string]any {
	t.Helper()
	status, body := graphql(t, api, "admin-token", workspace, query)
	data, _ := body["data"].(map[string]any)
	if status != 200 || data == nil || body["errors"] != nil {
		t.Fatalf("%s: %d %v", query, status, body)
	}
	return data
}

// TestAPIKeysOverGraphQL: the admin token creates a key (no step-up), the
// secret works on /v1 at once, the list never shows it, and a revoke stops
// it at once.
func TestAPIKeysOverGraphQL(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	created := gqlData(t, api, "ws_main", `mutation { createAPIKey(input: {name: "CRM sync", mode: "test",
		scopes: ["conversations:read"], channels: ["website"]}) { secret key { id prefix last4 status scopes channels } } }`)["createAPIKey"].(map[string]any)
	secret := created["secret"].(string)
	key := created["key"].(map[string]any)
	if !strings.HasPrefix(secret, "svc_test_") || key["status"] != "active" || key["last4"] != secret[len(secret)-4:] {
		t.Fatalf("created %v", created)
	}
	r := api.Want(api.Do("GET", "/v1/conversations", "", nil, "Authorization", "Bearer "+secret), 200, "")
	if len(r.Items()) == 0 {
		t.Errorf("the new key sees no conversation")
	}
	api.Want(api.Do("GET", "/v1/contacts", "", nil, "Authorization", "Bearer "+secret), 403, "insufficient_scope")

	list := gqlData(t, api, "ws_main", `{ apiKeys { id name status lastUsedAt } }`)
	raw := fmt.Sprint(list)
	if strings.Contains(raw, secret[9:]) || !strings.Contains(raw, "CRM sync") {
		t.Errorf("list %s", raw)
	}
	if other := fmt.Sprint(gqlData(t, api, "ws_other", `{ apiKeys { id name } }`)); strings.Contains(other, key["id"].(string)) {
		t.Errorf("another workspace lists the key: %s", other)
	}
	_, body := graphql(t, api, "admin-token", "ws_other", fmt.Sprintf(`mutation { revokeAPIKey(id: %q) { status } }`, key["id"]))
	if graphqlCode(body) != "api_key_not_found" {
		t.Errorf("another workspace revoked it: %v", body)
	}
	gqlData(t, api, "ws_main", fmt.Sprintf(`mutation { revokeAPIKey(id: %q) { status } }`, key["id"]))
	api.Want(api.Do("GET", "/v1/conversations", "", nil, "Authorization", "Bearer "+secret), 401, "key_revoked")
}

func TestChannelsOverview(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	o := gqlData(t, api, "ws_main", `{ channelsOverview {
		websites { website { id } snippet }
		whatsapp { id status subscription { status } templateSync { status } }
		instagram { id status } email { address } emailSenders { address verified }
		usage { messagesUsed messagesLimit } } }`)["channelsOverview"].(map[string]any)
	sites := o["websites"].([]any)
	first := sites[0].(map[string]any)
	if len(sites) != 2 || first["snippet"] != `<script src="/widget.js" data-website="web_main" async></script>` {
		t.Errorf("websites %v", sites)
	}
	if len(o["whatsapp"].([]any)) == 0 || len(o["emailSenders"].([]any)) == 0 || o["usage"].(map[string]any)["messagesLimit"] == nil {
		t.Errorf("overview %v", o)
	}
}
