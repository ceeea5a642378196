// Package credentials checks, seals and opens the provider credentials of
// channel accounts: the fixture's `provider` object and the
// GraphQL admin mutations go through Seal, sends and jobs through Open. The
// whole credentials object is sealed with graph/seal, bound to its account,
// so a sealed value copied to another account does not open; only the
// provider's id of the account (the routing key of inbound webhooks) is
// stored in the clear.
package credentials

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/repo"
)

// Invalid is a bad credentials object; its text names the field.
type Invalid struct{ Reason string }

func (e *Invalid) Error() string { return e.Reason }

var numericID = regexp.MustCompile(`^[0-9]{1,32}$`)

// tokenChars are what a bearer token may hold: it goes into a header.
var tokenChars = regexp.MustCompile(`^[\x21-\x7e]+$`)

// maxToken bounds an access token; Meta's are a few hundred characters.
const maxToken = 4096

// Check validates credentials for a channel and fills defaults (Instagram
// login "instagram").
func Check(channel string, c *channels.Credentials) error {
	bad := func(format string, args ...any) error { return &Invalid{Reason: fmt.Sprintf(format, args...)} }
	if c.AccessToken == "" {
		return bad("provider.access_token is required")
	}
	if len(c.AccessToken) > maxToken || !tokenChars.MatchString(c.AccessToken) {
		return bad("provider.access_token must be the token as Meta shows it: at most %d printable characters without spaces", maxToken)
	}
	switch channel {
	case "whatsapp":
		if !numericID.MatchString(c.PhoneNumberID) {
			return bad("provider.phone_number_id must be the number's numeric id at Meta")
		}
		if !numericID.MatchString(c.WABAID) {
			return bad("provider.waba_id must be the WhatsApp Business Account's numeric id")
		}
		if c.Login != "" || c.IGUserID != "" || c.PageID != "" {
			return bad("provider of a WhatsApp number takes phone_number_id, waba_id and access_token only")
		}
	case "instagram":
		if c.Login == "" {
			c.Login = "instagram"
		}
		switch c.Login {
		case "instagram":
			if !numericID.MatchString(c.IGUserID) {
				return bad("provider.ig_user_id must be the account's numeric id (login instagram)")
			}
		case "facebook":
			if !numericID.MatchString(c.PageID) {
				return bad("provider.page_id must be the Facebook Page's numeric id (login facebook)")
			}
			if c.IGUserID != "" && !numericID.MatchString(c.IGUserID) {
				return bad("provider.ig_user_id must be the Instagram account's numeric id, or left out to be read from the Page")
			}
		default:
			return bad("provider.login must be instagram or facebook")
		}
		if c.PhoneNumberID != "" || c.WABAID != "" {
			return bad("provider of an Instagram account takes no phone_number_id or waba_id")
		}
		if len(c.AppSecret) > 256 || (c.AppSecret != "" && !tokenChars.MatchString(c.AppSecret)) {
			return bad("provider.app_secret must be the Meta app's secret as the App Dashboard shows it")
		}
	default:
		return bad("accounts of channel %s take no provider object", channel)
	}
	return nil
}

// Key is the provider's id of an account: it routes inbound webhooks. An
// Instagram account's is its Instagram account id on both logins (Meta's
// Instagram webhooks name it in entry[].id); a Facebook Login account
// whose Instagram id is not known yet falls back to its Page id.
func Key(channel string, c *channels.Credentials) string {
	switch {
	case channel == "whatsapp":
		return c.PhoneNumberID
	case c.IGUserID != "":
		return c.IGUserID
	default:
		return c.PageID
	}
}

// pageOf is the Facebook Page id of an Instagram account's credentials,
// kept beside its key: a Page belongs to one account too.
func pageOf(channel string, c *channels.Credentials) string {
	if channel != "instagram" {
		return ""
	}
	return c.PageID
}

// Vault seals and opens credentials with the service's key.
type Vault struct{ Key seal.Key }

// SealAAD binds sealed credentials to their workspace and account.
func SealAAD(workspaceID, accountID string) string {
	return "account_providers:" + workspaceID + "/" + accountID
}

// Seal checks credentials and returns them as the row to store.
func (v Vault) Seal(workspaceID, accountID, channel string, c channels.Credentials, now time.Time) (*repo.AccountProvider, error) {
	if err := Check(channel, &c); err != nil {
		return nil, err
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("credentials: %w", err)
	}
	sealed, err := v.Key.Seal(raw, SealAAD(workspaceID, accountID))
	if err != nil {
		return nil, fmt.Errorf("credentials: seal: %w", err)
	}
	return &repo.AccountProvider{WorkspaceID: workspaceID, AccountID: accountID, Channel: channel,
		ProviderKey: Key(channel, &c), PageID: pageOf(channel, &c), Sealed: sealed, UpdatedAt: now}, nil
}

// Open unseals a stored row.
func (v Vault) Open(p *repo.AccountProvider) (*channels.Credentials, error) {
	raw, err := v.Key.Open(p.Sealed, SealAAD(p.WorkspaceID, p.AccountID))
	if err != nil {
		return nil, fmt.Errorf("credentials of %s: %w", p.AccountID, err)
	}
	var c channels.Credentials
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("credentials of %s: %w", p.AccountID, err)
	}
	return &c, nil
}

// Reader reads sealed credentials; repo.Queries is one.
type Reader interface {
	AccountProvider(ctx context.Context, workspaceID, accountID string) (*repo.AccountProvider, error)
}

// Of returns an account's credentials, nil when it has none (sandbox only).
func (v Vault) Of(ctx context.Context, q Reader, workspaceID, accountID string) (*channels.Credentials, error) {
	p, err := q.AccountProvider(ctx, workspaceID, accountID)
	if errors.Is(err, repo.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return v.Open(p)
}
