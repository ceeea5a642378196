package whatsapp

import (
	"context"
	"net/http"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
)

// Subscribe subscribes the app to the webhooks of the number's WABA:
// POST /{waba_id}/subscribed_apps with the number's token, which Meta
// answers {"success": true}
// (https://developers.facebook.com/docs/graph-api/reference/whats-app-business-account/subscribed_apps/).
// Without it Meta posts none of the WABA's messages or statuses to the
// app's callback, whatever fields the app subscribed.
func (a *Adapter) Subscribe(ctx context.Context, creds *channels.Credentials) error {
	if creds == nil || creds.WABAID == "" || creds.AccessToken == "" {
		return &meta.Error{Message: "the number has no WABA id or token to subscribe with"}
	}
	var out struct {
		Success bool `json:"success"`
	}
	if err := a.Graph.Do(ctx, http.MethodPost, a.Graph.URL(creds.WABAID, "subscribed_apps"), creds.AccessToken, "", nil, &out); err != nil {
		return err
	}
	if !out.Success {
		return &meta.Error{HTTPStatus: http.StatusOK, Message: "the provider answered the subscription without success"}
	}
	return nil
}
