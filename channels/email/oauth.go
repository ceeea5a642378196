package email

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// TokenSource gives the relay's XOAUTH2 access tokens.
type TokenSource interface {
	// Token is a valid access token, fetched when none is held or the
	// one held is about to expire.
	Token(ctx context.Context) (string, error)
	// Invalidate forgets token (the relay refused it) so that the next
	// Token fetches another.
	Invalidate(token string)
}

// OAuthClient is an OAuth 2.0 client (RFC 6749) of Microsoft's or Google's
// token endpoint that gets the access tokens XOAUTH2 sends: with a refresh
// token, the refresh_token grant (section 6), else the client_credentials
// grant (section 4.4). A token is kept until a minute before its
// expires_in; a refresh token the endpoint sends back replaces the one in
// use (Microsoft rotates them), in memory only.
type OAuthClient struct {
	OAuthConfig
	// HTTP makes the calls (http.DefaultClient when nil).
	HTTP *http.Client
	// Now is the injected clock (time.Now when nil).
	Now func() time.Time

	mu      sync.Mutex
	token   string
	expires time.Time
}

// OAuthConfig is an OAuth client's registration (MSGSVC_SMTP_OAUTH_*).
type OAuthConfig struct {
	TokenURL     string
	ClientID     string
	ClientSecret string
	RefreshToken string
	// Scope is sent when set: Microsoft's client credentials need
	// "https://outlook.office365.com/.default".
	Scope string
}

// tokenMargin is how long before its expiry a token is replaced.
const tokenMargin = time.Minute

// defaultLifetime is how long a token without expires_in is kept.
const defaultLifetime = 10 * time.Minute

// maxLifetime is the longest a token is kept, whatever its expires_in says.
const maxLifetime = 24 * time.Hour

// Token returns the access token held, or fetches one.
func (o *OAuthClient) Token(ctx context.Context) (string, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	now := o.now()
	if o.token != "" && now.Before(o.expires.Add(-tokenMargin)) {
		return o.token, nil
	}
	tok, lifetime, refresh, err := o.fetch(ctx)
	if err != nil {
		return "", err
	}
	o.token, o.expires = tok, now.Add(lifetime)
	if refresh != "" {
		o.RefreshToken = refresh
	}
	return tok, nil
}

// Invalidate forgets token when it is the one held.
func (o *OAuthClient) Invalidate(token string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.token == token {
		o.token = ""
	}
}

func (o *OAuthClient) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// tokenAnswer is a token endpoint's answer: RFC 6749 section 5.1 on
// success, section 5.2 on error.
type tokenAnswer struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int64  `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

// fetch asks the token endpoint for an access token; errors name the
// endpoint's error code and description, never a secret.
func (o *OAuthClient) fetch(ctx context.Context) (token string, lifetime time.Duration, refresh string, err error) {
	form := url.Values{"client_id": {o.ClientID}, "client_secret": {o.ClientSecret}}
	if o.RefreshToken != "" {
		form.Set("grant_type", "refresh_token")
		form.Set("refresh_token", o.RefreshToken)
	} else {
		form.Set("grant_type", "client_credentials")
	}
	if o.Scope != "" {
		form.Set("scope", o.Scope)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.TokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		// The parse error quotes the URL, userinfo and all.
		return "", 0, "", errors.New("OAuth token endpoint: the token URL does not parse")
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	hc := o.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return "", 0, "", fmt.Errorf("OAuth token endpoint unreachable: %w", errors.Unwrap(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", 0, "", fmt.Errorf("OAuth token endpoint: %w", err)
	}
	var a tokenAnswer
	jsonErr := json.Unmarshal(body, &a)
	switch {
	case a.Error != "":
		return "", 0, "", fmt.Errorf("OAuth token endpoint answered %d %s: %s", resp.StatusCode, a.Error, a.Description)
	case resp.StatusCode != http.StatusOK || jsonErr != nil:
		return "", 0, "", fmt.Errorf("OAuth token endpoint answered %d without a token", resp.StatusCode)
	case a.AccessToken == "" || !strings.EqualFold(a.TokenType, "bearer"):
		return "", 0, "", fmt.Errorf("OAuth token endpoint gave no Bearer access token (token_type %q)", a.TokenType)
	}
	lifetime = defaultLifetime
	if a.ExpiresIn > 0 {
		lifetime = time.Duration(min(a.ExpiresIn, int64(maxLifetime/time.Second))) * time.Second
	}
	return a.AccessToken, lifetime, a.RefreshToken, nil
}
