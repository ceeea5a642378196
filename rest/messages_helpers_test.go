package rest_test

import (
	"context"
	"testing"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/apierr"
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

// refusingAdapter stands in for a live provider that refuses with a code.
type refusingAdapter struct{ code apierr.Code }

func (a refusingAdapter) Send(context.Context, *channels.Message) (*channels.Receipt, error) {
	return nil, &channels.Refusal{Code: a.code, Reason: "the provider said no"}
}

// liveAdapters makes every live channel accept.
func liveAdapters(api *resttest.API) {
	api.Resolver.Adapters = map[string]channels.Adapter{
		"whatsapp": acceptingAdapter{}, "instagram": acceptingAdapter{}, "email": acceptingAdapter{}, "website": acceptingAdapter{},
	}
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
