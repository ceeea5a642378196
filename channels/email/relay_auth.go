package email

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// errTokenRefused: the relay answered an access token of Tokens with 535.
var errTokenRefused = errors.New("the relay refused the OAuth access token")

// authenticate runs AUTH; an access token of Tokens the relay refuses with
// 535 is forgotten (errTokenRefused).
func (r *Relay) authenticate(ctx context.Context, c *smtp.Client) error {
	mech, token, err := r.mechanism(ctx, c)
	if err != nil {
		return err
	}
	if err = c.Auth(mech); err == nil {
		return nil
	}
	var refused *smtp.SMTPError
	if token != "" && errors.As(err, &refused) && refused.Code == 535 {
		r.Tokens.Invalidate(token)
		return fmt.Errorf("AUTH: %w (%w)", err, errTokenRefused)
	}
	return fmt.Errorf("AUTH: %w", err)
}

// xoauth2 is Google's and Microsoft's OAuth 2.0 SASL mechanism.
const xoauth2 = "XOAUTH2"

// mechanism is the SASL client of the relay's credentials: the one the URL
// named, else PLAIN or LOGIN, whichever the relay advertises first in that
// order (Microsoft 365 offers LOGIN and XOAUTH2, not PLAIN); XOAUTH2 when
// Tokens is set. token is the access token Tokens gave ("" without).
func (r *Relay) mechanism(ctx context.Context, c *smtp.Client) (client sasl.Client, token string, err error) {
	_, offered := c.Extension("AUTH")
	want := []string{sasl.Plain, sasl.Login}
	switch {
	case r.Tokens != nil:
		want = []string{xoauth2}
	case r.Auth != "":
		want = []string{r.Auth}
	}
	for _, m := range want {
		if !c.SupportsAuth(m) {
			continue
		}
		switch m {
		case sasl.Plain:
			return sasl.NewPlainClient("", r.Username, r.Password), "", nil
		case sasl.Login:
			return &loginClient{r.Username, r.Password}, "", nil
		}
		if r.Tokens == nil {
			return &xoauth2Client{r.Username, r.Password}, "", nil
		}
		if token, err = r.Tokens.Token(ctx); err != nil {
			return nil, "", err
		}
		return &xoauth2Client{r.Username, token}, token, nil
	}
	if offered == "" {
		offered = "none"
	}
	return nil, "", fmt.Errorf("the relay offers AUTH %s; msgsvc speaks %s", offered, strings.Join(want, " or "))
}

// loginClient is AUTH LOGIN (draft-murchison-sasl-login) without an
// initial response: the relay asks "Username:" then "Password:".
type loginClient struct{ user, password string }

func (a *loginClient) Start() (string, []byte, error) { return sasl.Login, nil, nil }

func (a *loginClient) Next(challenge []byte) ([]byte, error) {
	switch q := strings.ToLower(string(challenge)); {
	case strings.HasPrefix(q, "user"):
		return []byte(a.user), nil
	case strings.HasPrefix(q, "pass"):
		return []byte(a.password), nil
	}
	return nil, sasl.ErrUnexpectedServerChallenge
}

// xoauth2Client is XOAUTH2 (developers.google.com/gmail/imap/xoauth2-protocol,
// learn.microsoft.com/exchange/client-developer/legacy-protocols/how-to-authenticate-an-imap-pop-smtp-application-by-using-oauth):
// the initial response carries the user and the bearer token; a 334
// challenge is the server's JSON error, answered with an empty line so
// that it ends the exchange with its error code.
type xoauth2Client struct{ user, token string }

func (a *xoauth2Client) Start() (string, []byte, error) {
	return xoauth2, []byte("user=" + a.user + "\x01auth=Bearer " + a.token + "\x01\x01"), nil
}

func (a *xoauth2Client) Next([]byte) ([]byte, error) { return []byte{}, nil }
