package metatest

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
)

// The Instagram account calls, as Meta documents them:
//
//	GET  /{ver}/me?fields=user_id,username          (Instagram host) {user_id, username, id}
//	     https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/get-started
//	GET  /{ver}/{page_id}?fields=instagram_business_account  (Meta host) {instagram_business_account: {id}, id}
//	     https://developers.facebook.com/docs/instagram-platform/instagram-api-with-facebook-login/get-started
//	POST /{ver}/{ig_user_id|page_id}/subscribed_apps?subscribed_fields=…  {success: true}
//	     https://developers.facebook.com/docs/instagram-platform/webhooks (step 3),
//	     https://developers.facebook.com/docs/graph-api/reference/page/subscribed_apps
//	GET  /refresh_access_token?grant_type=ig_refresh_token&access_token=…  (Instagram host, no version)
//	     {access_token, token_type: "bearer", expires_in}
//	     https://developers.facebook.com/docs/instagram-platform/reference/refresh_access_token
//	GET  /{ver}/{ig_user_id}/live_media  {data: [{id}]}, only media being broadcast now
//	     https://developers.facebook.com/docs/instagram-platform/instagram-graph-api/reference/ig-user/live_media
//
// A token the stand-in does not know is answered 400 with code 190, as
// Meta answers an invalid OAuth access token.

// InstagramAccount is an Instagram professional account the stand-in
// knows: its id, username, the Instagram Login token that opens it, and the
// Page (with its token) it is linked to for Facebook Login.
type InstagramAccount struct {
	IGUserID  string
	Username  string
	Token     string
	PageID    string
	PageToken string
	// AppSecret, when set, is required as appsecret_proof on every call.
	AppSecret string
}

// ExpiresIn is the expires_in the refresh answers (60 days).
const ExpiresIn = 5184000

type igState struct {
	accounts []InstagramAccount
	live     map[string][]string
	// refreshed counts refreshes, to make each new token unique.
	refreshed int
}

// AddInstagramAccount makes the stand-in know an account.
func (s *Server) AddInstagramAccount(a InstagramAccount) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ig.accounts = append(s.ig.accounts, a)
}

// SetLive lists the media an account is broadcasting now (none ends it).
func (s *Server) SetLive(igUserID string, mediaIDs ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ig.live == nil {
		s.ig.live = map[string][]string{}
	}
	s.ig.live[igUserID] = mediaIDs
}

// InstagramToken is the token an account has now (after refreshes).
func (s *Server) InstagramToken(igUserID string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.ig.accounts {
		if a.IGUserID == igUserID {
			return a.Token
		}
	}
	return ""
}

func invalidToken() answer {
	return jsonAnswer(400, ErrorBody(190, 0, "Invalid OAuth access token - Cannot parse access token"))
}

// instagramAnswer answers the account calls above; ok is false for any
// other request.
func (s *Server) instagramAnswer(rec Request) (answer, bool) {
	seg := strings.Split(strings.Trim(rec.Path, "/"), "/")
	if rec.Host == HostInstagram && rec.Method == http.MethodGet && len(seg) == 1 && seg[0] == "refresh_access_token" {
		return s.refresh(rec), true
	}
	if len(seg) < 2 || !version.MatchString(seg[0]) {
		return answer{}, false
	}
	rest := seg[1:]
	switch {
	case rec.Method == http.MethodGet && len(rest) == 1 && rest[0] == "me" && rec.Host == HostInstagram:
		return s.withAccount(rec, func(a InstagramAccount) bool { return a.Token == rec.Bearer() }, func(a InstagramAccount) answer {
			return jsonAnswer(200, map[string]any{"user_id": a.IGUserID, "username": a.Username, "id": "app-scoped-" + a.IGUserID})
		}), true
	case rec.Method == http.MethodGet && len(rest) == 1 && rec.Host == HostMeta && strings.Contains(rec.Query.Get("fields"), "instagram_business_account"):
		return s.withAccount(rec, func(a InstagramAccount) bool { return a.PageID == rest[0] && a.PageToken == rec.Bearer() }, func(a InstagramAccount) answer {
			return jsonAnswer(200, map[string]any{"instagram_business_account": map[string]any{"id": a.IGUserID}, "id": a.PageID})
		}), true
	case rec.Method == http.MethodPost && len(rest) == 2 && rest[1] == "subscribed_apps" &&
		(rec.Host == HostInstagram || s.isPage(rest[0])):
		return s.withAccount(rec, func(a InstagramAccount) bool {
			return (rec.Host == HostInstagram && a.IGUserID == rest[0] && a.Token == rec.Bearer()) ||
				(rec.Host == HostMeta && a.PageID == rest[0] && a.PageToken == rec.Bearer())
		}, func(InstagramAccount) answer {
			if rec.Query.Get("subscribed_fields") == "" {
				return jsonAnswer(400, ErrorBody(100, 0, "(#100) The parameter subscribed_fields is required"))
			}
			return jsonAnswer(200, map[string]any{"success": true})
		}), true
	case rec.Method == http.MethodGet && len(rest) == 2 && rest[1] == "live_media":
		return s.withAccount(rec, func(a InstagramAccount) bool {
			return a.IGUserID == rest[0] && (a.Token == rec.Bearer() || (a.PageToken != "" && a.PageToken == rec.Bearer()))
		}, func(a InstagramAccount) answer {
			s.mu.Lock()
			data := []any{}
			for _, id := range s.ig.live[a.IGUserID] {
				data = append(data, map[string]any{"id": id})
			}
			s.mu.Unlock()
			return jsonAnswer(200, map[string]any{"data": data})
		}), true
	}
	return answer{}, false
}

// isPage tells whether id is the Page of an Instagram account: the Graph
// API's subscribed_apps of a Page, not of a WABA (serve.go).
func (s *Server) isPage(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.ContainsFunc(s.ig.accounts, func(a InstagramAccount) bool { return a.PageID == id })
}

// withAccount answers with the account match finds (its appsecret_proof
// checked), or 190.
func (s *Server) withAccount(rec Request, match func(InstagramAccount) bool, fn func(InstagramAccount) answer) answer {
	s.mu.Lock()
	i := slices.IndexFunc(s.ig.accounts, match)
	var a InstagramAccount
	if i >= 0 {
		a = s.ig.accounts[i]
	}
	s.mu.Unlock()
	if i < 0 {
		return invalidToken()
	}
	if a.AppSecret != "" && rec.Query.Get("appsecret_proof") != proof(a.AppSecret, rec.Bearer()) {
		return jsonAnswer(400, ErrorBody(100, 0, "Invalid appsecret_proof provided in the API argument"))
	}
	return fn(a)
}

func (s *Server) refresh(rec Request) answer {
	token := rec.Query.Get("access_token")
	if rec.Query.Get("grant_type") != "ig_refresh_token" || token == "" {
		return jsonAnswer(400, ErrorBody(100, 0, "(#100) grant_type must be ig_refresh_token"))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, a := range s.ig.accounts {
		if a.Token != token {
			continue
		}
		if a.AppSecret != "" && rec.Query.Get("appsecret_proof") != proof(a.AppSecret, token) {
			return jsonAnswer(400, ErrorBody(100, 0, "Invalid appsecret_proof provided in the API argument"))
		}
		s.ig.refreshed++
		s.ig.accounts[i].Token = fmt.Sprintf("IGQV-refreshed-%d-%s", s.ig.refreshed, a.IGUserID)
		return jsonAnswer(200, map[string]any{"access_token": s.ig.accounts[i].Token, "token_type": "bearer", "expires_in": ExpiresIn})
	}
	return invalidToken()
}

// proof is appsecret_proof: hex HMAC-SHA256 of the token, keyed with the
// app secret.
func proof(appSecret, token string) string {
	mac := hmac.New(sha256.New, []byte(appSecret))
	mac.Write([]byte(token))
	return hex.EncodeToString(mac.Sum(nil))
}
