package rest_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/repo"
)

// A tenant whose Instagram account is connected through an app of its own
// signs, with that app's secret and naming its own account, a message_edit,
// an is_deleted DM and a read of another workspace's mids: /hooks/meta
// takes the payload (its signature is good), and the victim's messages
// change not and no event is recorded in the victim's workspace.
// Payload shapes: https://developers.facebook.com/docs/instagram-platform/webhooks/examples/
func TestHostileSignedPayloadNamingAnotherWorkspacesMids(t *testing.T) {
	t.Parallel()
	const hostileID, hostileSecret = "17841499999999999", "hostile-app-secret"
	h := newIGHooks(t, channels.Credentials{Login: "instagram", IGUserID: igUser, AccessToken: igToken})
	at := h.Clock.Now()
	h.deliver(igDM(igUser, igCustomer, igUser, "mid.victim", at, map[string]any{"text": "original"}))
	h.deliver(igDM(igUser, igUser, igCustomer, "mid.victim.app", at, map[string]any{"text": "from the app", "is_echo": true}))
	victimIn, victimOut := h.igMessage("mid.victim"), h.igMessage("mid.victim.app")
	eventsBefore := len(h.Events("ws_main"))

	if err := h.Store.UpsertAccount(t.Context(), &repo.Account{WorkspaceID: "ws_other", ID: "ig_hostile", Channel: "instagram",
		WebsiteID: "web_other", Username: "hostile", Status: "connected"}); err != nil {
		t.Fatal(err)
	}
	row, err := credentials.Vault{Key: h.Resolver.Seal}.Seal("ws_other", "ig_hostile", "instagram",
		channels.Credentials{Login: "instagram", IGUserID: hostileID, AccessToken: "IGQV-hostile", AppSecret: hostileSecret}, at)
	if err == nil {
		err = h.Store.UpsertAccountProvider(t.Context(), row)
	}
	if err != nil {
		t.Fatal(err)
	}
	ts := at.Add(time.Minute).UnixMilli()
	for _, ev := range []string{
		`{"sender":{"id":"IGSID-h"},"recipient":{"id":"` + hostileID + `"},"timestamp":` + itoa(ts) + `,
			"message_edit":{"mid":"mid.victim","text":"pwned","num_edit":1}}`,
		`{"sender":{"id":"IGSID-h"},"recipient":{"id":"` + hostileID + `"},"timestamp":` + itoa(ts) + `,
			"message":{"mid":"mid.victim","is_deleted":true}}`,
		`{"sender":{"id":"IGSID-h"},"recipient":{"id":"` + hostileID + `"},"timestamp":` + itoa(ts) + `,
			"read":{"mid":"mid.victim.app"}}`,
	} {
		payload := map[string]any{"object": "instagram", "entry": []any{map[string]any{"id": hostileID, "time": ts / 1000,
			"messaging": []any{json.RawMessage(ev)}}}}
		if status := h.post(payload, meta.SignatureValue(hostileSecret, mustJSON(t, payload))); status != http.StatusOK {
			t.Fatalf("the hostile app's own signature answered %d", status)
		}
	}
	if err := h.process(); err != nil {
		t.Fatal(err)
	}
	in := h.Want(h.Do("GET", "/v1/messages/"+victimIn, "live_all", nil), 200, "").Data()
	out := h.Want(h.Do("GET", "/v1/messages/"+victimOut, "live_all", nil), 200, "").Data()
	if in["text"] != "original" || in["deleted"] == true || out["status"] == "read" {
		t.Errorf("the victim's messages changed: %v; %v", in, out)
	}
	if n := len(h.Events("ws_main")); n != eventsBefore {
		t.Errorf("%d events recorded in the victim's workspace, want none", n-eventsBefore)
	}
}
