package rest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// sendMsg posts a message with a fixture key.
func sendMsg(api *resttest.API, key string, body map[string]any, header ...string) *resttest.Response {
	api.T.Helper()
	return api.Do("POST", "/v1/messages", key, body, header...)
}

// dbExec sets up a state the API cannot create (a paused integration, a
// suppressed address, a quota) directly in the test's database.
func dbExec(t testing.TB, api *resttest.API, query string, args ...any) {
	t.Helper()
	if _, err := api.Store.DB.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// startConv injects a sandbox customer message and returns its conversation.
func startConv(api *resttest.API, body map[string]any) string {
	api.T.Helper()
	if body["name"] == nil {
		body["name"] = "Customer"
	}
	if body["text"] == nil {
		body["text"] = "hello"
	}
	r := api.Want(api.Do("POST", "/v1/test/inbound", "test_all", body), 201, "")
	return r.Data()["conversation"].(map[string]any)["id"].(string)
}

// acceptingAdapter stands in for a live provider that accepts everything, so
// quota and live paths can be tested without one.
type acceptingAdapter struct{}

func (acceptingAdapter) Send(_ context.Context, m *channels.Message) (*channels.Receipt, error) {
	return &channels.Receipt{ProviderIDs: []string{"provider_" + m.ID}}, nil
}

// connectProviders gives the fixture's WhatsApp and Instagram accounts
// provider credentials (sealed, as the fixture's provider object would) and
// live copies of the fixture's templates (as the template sync would), so
// live sends reach their adapters.
func connectProviders(api *resttest.API) {
	api.T.Helper()
	key, err := seal.New("", "test-secret-0123456789")
	if err != nil {
		api.T.Fatal(err)
	}
	api.Reconfigure(func(c *resttest.Config) { c.Seal = key })
	var accounts []struct{ WorkspaceID, ID, Channel string }
	if err := api.Store.DB.Select(&accounts, `SELECT workspace_id AS workspaceid, id, channel FROM channel_accounts
		WHERE channel IN ('whatsapp', 'instagram')`); err != nil {
		api.T.Fatal(err)
	}
	for i, a := range accounts {
		c := channels.Credentials{AccessToken: "token-" + a.ID, PhoneNumberID: fmt.Sprint(1065403522400 + i), WABAID: "1022901293400"}
		if a.Channel == "instagram" {
			c = channels.Credentials{AccessToken: "token-" + a.ID, IGUserID: fmt.Sprint(178414058223000 + i)}
		}
		row, err := credentials.Vault{Key: key}.Seal(a.WorkspaceID, a.ID, a.Channel, c, time.Now())
		if err == nil {
			err = api.Store.UpsertAccountProvider(api.T.Context(), row)
		}
		if err != nil {
			api.T.Fatal(err)
		}
	}
	dbExec(api.T, api, `INSERT INTO templates (id, workspace_id, livemode, whatsapp_account_id, name, language, category, status, body)
		SELECT id || '_live', workspace_id, true, whatsapp_account_id, name, language, category, status, body
		FROM templates WHERE NOT livemode ON CONFLICT DO NOTHING`)
}

// liveAdapters makes every live channel accept.
func liveAdapters(api *resttest.API) {
	connectProviders(api)
	api.Reconfigure(func(c *resttest.Config) {
		c.Adapters = map[string]channels.Adapter{
			"whatsapp": acceptingAdapter{}, "instagram": acceptingAdapter{}, "email": acceptingAdapter{}, "website": acceptingAdapter{},
		}
	})
}

// usedMessages reads GET /v1/usage with a key.
func usedMessages(api *resttest.API, key string) float64 {
	api.T.Helper()
	return api.Want(api.Do("GET", "/v1/usage", key, nil), 200, "").Data()["messages_used"].(float64)
}

func tpl(name string, params ...string) map[string]any {
	if params == nil {
		params = []string{}
	}
	return map[string]any{"name": name, "language": "en_US", "parameters": params}
}
