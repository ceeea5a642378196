package rest_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta/metatest"
	"github.com/msgsvc/msgsvc/channels/whatsapp"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// connection runs a GraphQL operation on a channel connection as the admin
// and returns its object; a GraphQL error fails the test unless wantCode
// names its code.
func connection(t *testing.T, api *resttest.API, op, wantCode string) map[string]any {
	t.Helper()
	status, body := graphql(t, api, "admin-token", "ws_main", op)
	raw := fmt.Sprint(body)
	if strings.Contains(raw, "EAAG") {
		t.Errorf("a GraphQL answer carries a token: %s", raw)
	}
	errs, _ := body["errors"].([]any)
	if wantCode != "" {
		if status != 200 || len(errs) != 1 || errs[0].(map[string]any)["extensions"].(map[string]any)["code"] != wantCode {
			t.Fatalf("%s: got %d %v, want error %s", op, status, body, wantCode)
		}
		return nil
	}
	if status != 200 || len(errs) != 0 {
		t.Fatalf("%s: %d %v", op, status, body)
	}
	for _, v := range body["data"].(map[string]any) {
		return v.(map[string]any)
	}
	return nil
}

// connectableAPI is the API with a sealing key and the WhatsApp adapter on
// a Graph API stand-in, its numbers not connected yet.
func connectableAPI(t *testing.T) (*resttest.API, *metatest.Server) {
	t.Helper()
	api := resttest.New(t)
	key, err := seal.New("", "test-secret-0123456789")
	if err != nil {
		t.Fatal(err)
	}
	api.Reconfigure(func(c *resttest.Config) { c.Seal = key })
	graph := metatest.New(t)
	api.Reconfigure(func(c *resttest.Config) {
		c.Adapters = map[string]channels.Adapter{"whatsapp": whatsapp.New(graph.Config(5 * time.Second))}
	})
	return api, graph
}

const connectionFields = `{ accountId channel status connected needsReauth providerAccountId wabaId login updatedAt }`

// A WhatsApp number connected through the GraphQL admin mutations sends
// with its sealed token; a 190 marks it needs_reauth, a rotated token
// connects it again, and a disconnected number sends with test keys only.
func TestConnectAWhatsAppNumberThroughGraphQL(t *testing.T) {
	t.Parallel()
	api, graph := connectableAPI(t)
	dbExec(t, api, `INSERT INTO templates (id, workspace_id, livemode, whatsapp_account_id, name, language, category, status, body)
		SELECT id || '_live', workspace_id, true, whatsapp_account_id, name, language, category, status, body
		FROM templates WHERE NOT livemode ON CONFLICT DO NOTHING`)
	reply := map[string]any{"conversation_id": "conv_live", "text": "hello"}

	got := connection(t, api, `{ channelConnection(accountId: "wa_main") `+connectionFields+` }`, "")
	if got["connected"] != false || got["providerAccountId"] != nil {
		t.Fatalf("before connecting: %v", got)
	}
	api.Want(sendMsg(api, "live_all", reply), 503, "channel_unavailable")

	got = connection(t, api, `mutation { connectChannelAccount(accountId: "wa_main", input: {phoneNumberId: "106540352242922",
		wabaId: "102290129340398", accessToken: "EAAGfirst"}) `+connectionFields+` }`, "")
	want := map[string]any{"accountId": "wa_main", "channel": "whatsapp", "status": "connected", "connected": true, "needsReauth": false,
		"providerAccountId": "106540352242922", "wabaId": "102290129340398", "login": nil, "updatedAt": "2026-10-15T12:00:00.000Z"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("connected: %v, want %v", got, want)
	}
	var sealed string
	if err := api.Store.DB.Get(&sealed, `SELECT sealed FROM account_providers WHERE account_id = 'wa_main'`); err != nil || strings.Contains(sealed, "EAAG") {
		t.Fatalf("stored %q (%v)", sealed, err)
	}
	api.Want(sendMsg(api, "live_all", reply), 201, "")
	sends := graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") })
	if len(sends) != 1 || sends[0].Path != "/v24.0/106540352242922/messages" || sends[0].Bearer() != "EAAGfirst" {
		t.Fatalf("provider calls %+v", sends)
	}

	// Meta says the token is dead: needs_reauth, and no more calls.
	graph.Fail("/messages", 401, 190, 463, "Error validating access token: Session has expired")
	api.Want(sendMsg(api, "live_all", reply), 503, "channel_unavailable")
	got = connection(t, api, `{ channelConnection(accountId: "wa_main") `+connectionFields+` }`, "")
	if got["status"] != "needs_reauth" || got["needsReauth"] != true || got["connected"] != true {
		t.Errorf("after a 190: %v", got)
	}
	channelsAnswer := api.Want(api.Do("GET", "/v1/channels", "live_all", nil), 200, "").Data()
	if wa := channelsAnswer["whatsapp"].([]any)[0].(map[string]any); wa["status"] != "needs_reauth" || strings.Contains(fmt.Sprint(channelsAnswer), "EAAG") {
		t.Errorf("GET /v1/channels: %v", channelsAnswer)
	}

	got = connection(t, api, `mutation { rotateChannelToken(accountId: "wa_main", accessToken: "EAAGsecond") `+connectionFields+` }`, "")
	if got["status"] != "connected" || got["needsReauth"] != false || got["providerAccountId"] != "106540352242922" {
		t.Errorf("after rotation: %v", got)
	}
	api.Want(sendMsg(api, "live_all", reply), 201, "")
	sends = graph.Requests(func(r metatest.Request) bool { return strings.HasSuffix(r.Path, "/messages") })
	if last := sends[len(sends)-1]; len(sends) != 3 || last.Bearer() != "EAAGsecond" {
		t.Errorf("after rotation the provider got %d sends, the last with token %q", len(sends), last.Bearer())
	}

	got = connection(t, api, `mutation { disconnectChannelAccount(accountId: "wa_main") `+connectionFields+` }`, "")
	if got["connected"] != false || got["providerAccountId"] != nil {
		t.Errorf("after disconnect: %v", got)
	}
	api.Want(sendMsg(api, "live_all", reply), 503, "channel_unavailable")

	// Bad input and foreign accounts are refused as invalid_request.
	connection(t, api, `mutation { connectChannelAccount(accountId: "wa_main", input: {phoneNumberId: "+15550001111",
		wabaId: "1", accessToken: "EAAGx"}) { accountId } }`, "invalid_request")
	connection(t, api, `mutation { rotateChannelToken(accountId: "wa_main", accessToken: "EAAGx") { accountId } }`, "invalid_request")
	connection(t, api, `{ channelConnection(accountId: "wa_nowhere") { accountId } }`, "invalid_request")
}

// A bad credential is named as the mutation's caller wrote it (accessToken,
// input.phoneNumberId), not as the fixture's provider object spells it.
func TestConnectErrorsNameTheGraphQLArguments(t *testing.T) {
	t.Parallel()
	api := resttest.New(t)
	for op, want := range map[string]string{
		`mutation { connectChannelAccount(accountId: "wa_main", input: {phoneNumberId: "106540352242922", wabaId: "102290129340398", accessToken: "EAAG\u2026"}) { accountId } }`: "accessToken must be the token as Meta shows it",
		`mutation { connectChannelAccount(accountId: "wa_main", input: {phoneNumberId: "+1555", wabaId: "102290129340398", accessToken: "EAAGx"}) { accountId } }`:                "input.phoneNumberId must be",
		`mutation { connectChannelAccount(accountId: "wa_main", input: {phoneNumberId: "1", wabaId: "2", pageId: "3", accessToken: "EAAGx"}) { accountId } }`:                     "input of a WhatsApp number takes phoneNumberId, wabaId and accessToken only",
	} {
		_, body := graphql(t, api, "admin-token", "ws_main", op)
		errs, _ := body["errors"].([]any)
		if len(errs) != 1 || !strings.Contains(fmt.Sprint(errs[0].(map[string]any)["message"]), want) || strings.Contains(fmt.Sprint(body), "provider") {
			t.Errorf("%s: %v, want a message with %q", op, body, want)
		}
	}
}
