package instagram

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// WebhookFields are the Instagram webhook fields an account is subscribed
// to at connect (Instagram Login), and the ones the app's Instagram
// webhook must have in the App Dashboard: every field msgsvc processes.
// message_echoes is a Messenger field, not an Instagram one: echoes of an
// Instagram account come with messages.
var WebhookFields = []string{"messages", "messaging_postbacks", "messaging_referral", "messaging_seen",
	"message_reactions", "message_edit", "comments", "live_comments"}

// PageFields are the Page fields a Facebook Login account's Page is
// subscribed to at connect: Meta delivers Instagram webhooks of a Page's
// account only while the Page has the app subscribed.
var PageFields = []string{"messages"}

// Identity is what Meta says an account's token belongs to.
type Identity struct {
	// IGUserID is the Instagram professional account id (the id Meta's
	// Instagram webhooks name in entry[].id, on both logins).
	IGUserID string
	Username string
}

// Identify asks Meta whose account the token opens: on Instagram Login,
// GET /me?fields=user_id,username on the Instagram host; on Facebook
// Login, GET /{page_id}?fields=instagram_business_account on the Meta
// host (the Instagram account linked to the Page). The IG id is empty when
// the Page has no Instagram professional account linked.
func (a *Adapter) Identify(ctx context.Context, c *channels.Credentials) (*Identity, error) {
	n, err := a.node(channels.Account{ID: "being connected", Provider: c})
	if err != nil {
		return nil, err
	}
	if c.Login == LoginFacebook {
		var out struct {
			ID                       string `json:"id"`
			InstagramBusinessAccount *struct {
				ID       string `json:"id"`
				Username string `json:"username"`
			} `json:"instagram_business_account"`
		}
		if err := n.client.GetJSON(ctx, n.token, url.Values{"fields": {"instagram_business_account"}}, &out, c.PageID); err != nil {
			return nil, err
		}
		if out.InstagramBusinessAccount == nil {
			return &Identity{}, nil
		}
		return &Identity{IGUserID: out.InstagramBusinessAccount.ID, Username: out.InstagramBusinessAccount.Username}, nil
	}
	var out struct {
		UserID   meta.ID `json:"user_id"`
		Username string  `json:"username"`
	}
	if err := n.client.GetJSON(ctx, n.token, url.Values{"fields": {"user_id,username"}}, &out, "me"); err != nil {
		return nil, err
	}
	return &Identity{IGUserID: string(out.UserID), Username: out.Username}, nil
}

// Subscribe turns on the account's webhooks for this app: POST
// /{ig_user_id}/subscribed_apps?subscribed_fields=WebhookFields on the
// Instagram host (Instagram Login), POST /{page_id}/subscribed_apps?
// subscribed_fields=PageFields on the Meta host (Facebook Login). Meta
// answers {"success": true}.
func (a *Adapter) Subscribe(ctx context.Context, c *channels.Credentials) error {
	n, err := a.node(channels.Account{ID: "being connected", Provider: c})
	if err != nil {
		return err
	}
	fields := WebhookFields
	if c.Login == LoginFacebook {
		fields = PageFields
	}
	q := url.Values{"subscribed_fields": {strings.Join(fields, ",")}}
	var out struct {
		Success any `json:"success"`
	}
	target := n.client.URL(n.id, "subscribed_apps") + "?" + q.Encode()
	if err := n.client.Do(ctx, http.MethodPost, target, n.token, "", nil, &out); err != nil {
		return err
	}
	if out.Success != true && out.Success != "true" {
		return &meta.Error{HTTPStatus: http.StatusOK, Message: "the provider did not confirm the subscription"}
	}
	return nil
}

// Token is a refreshed Instagram Login token.
type Token struct {
	AccessToken string
	ExpiresIn   time.Duration
}

// RefreshToken renews a long-lived Instagram Login token (at least 24
// hours old, not expired): GET {instagram host}/refresh_access_token?
// grant_type=ig_refresh_token&access_token=… (no version in the path), which
// answers {"access_token", "token_type": "bearer", "expires_in": seconds}.
func (a *Adapter) RefreshToken(ctx context.Context, c *channels.Credentials) (*Token, error) {
	q := url.Values{"grant_type": {"ig_refresh_token"}, "access_token": {c.AccessToken}}
	client := withProof(a.Instagram, c.AppSecret)
	var out struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
		ExpiresIn   int64  `json:"expires_in"`
	}
	target := strings.TrimRight(client.BaseURL, "/") + "/refresh_access_token?" + q.Encode()
	if err := client.Do(ctx, http.MethodGet, target, "", "", nil, &out); err != nil {
		return nil, err
	}
	if out.AccessToken == "" || out.ExpiresIn <= 0 {
		return nil, &meta.Error{HTTPStatus: http.StatusOK, Message: "the provider's refresh answer has no access_token or expires_in"}
	}
	return &Token{AccessToken: out.AccessToken, ExpiresIn: time.Duration(out.ExpiresIn) * time.Second}, nil
}

// Broadcasting says whether mediaID is a live video the account is
// broadcasting now: GET /{ig_user_id}/live_media lists only the live media
// being broadcast at the time of the request. A Facebook Login account
// asks on the Meta host with its Page token.
func (a *Adapter) Broadcasting(ctx context.Context, c *channels.Credentials, mediaID string) (bool, error) {
	client := a.Instagram
	if c.Login == LoginFacebook {
		client = a.Graph
	}
	client = withProof(client, c.AppSecret)
	if c.IGUserID == "" {
		return false, errors.New("instagram: the account's Instagram id is not known")
	}
	var out struct {
		Data []struct {
			ID meta.ID `json:"id"`
		} `json:"data"`
	}
	if err := client.GetJSON(ctx, c.AccessToken, url.Values{"fields": {"id"}}, &out, c.IGUserID, "live_media"); err != nil {
		return false, err
	}
	for _, m := range out.Data {
		if string(m.ID) == mediaID {
			return true, nil
		}
	}
	return false, nil
}

// liveReplyAllowed refuses the private reply to a live comment once the
// broadcast is over (Meta takes it only during the broadcast).
func (a *Adapter) liveReplyAllowed(ctx context.Context, m *channels.Message) error {
	if m.LiveMediaID == "" {
		return nil
	}
	live, err := a.Broadcasting(ctx, m.Account.Provider, m.LiveMediaID)
	if err != nil {
		return channels.NotSent(err)
	}
	if !live {
		return &channels.Refusal{Code: apierr.PrivateReplyExpired,
			Reason: "The live video has ended; a comment on a live video takes its private reply only during the broadcast."}
	}
	return nil
}

// withProof is client proving every call with the account's own app
// secret (appsecret_proof), when it has one; client itself otherwise.
func withProof(client *meta.Client, appSecret string) *meta.Client {
	if appSecret == "" {
		return client
	}
	return client.WithAppSecret(appSecret)
}

// AuthFailed says whether err is Meta refusing the token itself (code
// 190, or an HTTP 401; the refusal's NeedsReauth): the account needs a new
// token.
func AuthFailed(err error) bool {
	return err != nil && channels.AsRefusal(err).NeedsReauth
}

// Describe names a provider failure for an operator, without a token.
func Describe(err error) string {
	var e *meta.Error
	if errors.As(err, &e) {
		if e.Code != 0 {
			return e.Reason()
		}
		return e.Message
	}
	return fmt.Sprint(err)
}
