package repo

import (
	"context"
	"fmt"
	"time"

	"github.com/lib/pq"
)

// Workspace is a customer account of msgsvc.
type Workspace struct {
	ID            string `db:"id"`
	Name          string `db:"name"`
	Plan          string `db:"plan"`
	Status        string `db:"status"`
	OwnerEmail    string `db:"owner_email"`
	MessagesLimit int    `db:"messages_limit"`
	RatePerSecond int    `db:"rate_per_second"`
	RatePerMinute int    `db:"rate_per_minute"`
}

// APIKey is a key as stored: only the hash of its secret.
type APIKey struct {
	ID          string         `db:"id"`
	WorkspaceID string         `db:"workspace_id"`
	SecretHash  string         `db:"secret_hash"`
	Livemode    bool           `db:"livemode"`
	Scopes      pq.StringArray `db:"scopes"`
	Channels    pq.StringArray `db:"channels"`
	WebsiteIDs  pq.StringArray `db:"website_ids"`
	IPAllowlist pq.StringArray `db:"ip_allowlist"`
	ExpiresAt   *time.Time     `db:"expires_at"`
	Revoked     bool           `db:"revoked"`
	RolledTo    *string        `db:"rolled_to"`
	GraceUntil  *time.Time     `db:"grace_until"`
	Version     string         `db:"version"`
}

// Account is a channel account: a website, WhatsApp number, Instagram account
// or email address.
type Account struct {
	WorkspaceID       string `db:"workspace_id"`
	ID                string `db:"id"`
	Channel           string `db:"channel"`
	WebsiteID         string `db:"website_id"`
	Name              string `db:"name"`
	PhoneNumber       string `db:"phone_number"`
	Username          string `db:"username"`
	Address           string `db:"address"`
	Status            string `db:"status"`
	MarketingMessages string `db:"marketing_messages"`
	Processing        bool   `db:"processing"`
	ForwardingActive  bool   `db:"forwarding_active"`
}

// Website is a site with a chat widget.
type Website struct {
	ID          string         `db:"id"`
	WorkspaceID string         `db:"workspace_id"`
	Name        string         `db:"name"`
	Domains     pq.StringArray `db:"domains"`
}

// Agent is a member of a workspace (app.md's people): Role says what she
// may do; routing assigns conversations to the active members of role agent.
type Agent struct {
	ID          string `db:"id"`
	WorkspaceID string `db:"workspace_id"`
	Name        string `db:"name"`
	Email       string `db:"email"`
	Active      bool   `db:"active"`
	// Role is owner, admin, developer or agent.
	Role string `db:"role"`
	// MaxOpen bounds the open conversations routing assigns her.
	MaxOpen int `db:"max_open"`
}

const (
	workspaceColumns = `id, name, plan, status, owner_email, messages_limit, rate_per_second, rate_per_minute`
	apiKeyColumns    = `id, workspace_id, secret_hash, livemode, scopes, channels, website_ids, ip_allowlist,
	expires_at, revoked, rolled_to, grace_until, version`
	websiteColumns = `id, workspace_id, name, domains`
	accountColumns = `workspace_id, id, channel, website_id, name, phone_number, username, address,
	status, marketing_messages, processing, forwarding_active`
	agentColumns = `id, workspace_id, name, email, active, role, max_open`
	// agentFixtureColumns are what a fixture's member writes; max_open keeps
	// its default unless the fixture sets it (SetAgentMaxOpen).
	agentFixtureColumns = `id, workspace_id, name, email, active, role`
)

// Workspace returns one workspace.
func (q Queries) Workspace(ctx context.Context, id string) (*Workspace, error) {
	return one[Workspace](ctx, q, `SELECT `+workspaceColumns+` FROM workspaces WHERE id = $1`, id)
}

// APIKeyByHash finds a key by the hash of its secret.
func (q Queries) APIKeyByHash(ctx context.Context, hash string) (*APIKey, error) {
	return one[APIKey](ctx, q, `SELECT `+apiKeyColumns+` FROM api_keys WHERE secret_hash = $1`, hash)
}

// APIKey finds a key of a workspace by id.
func (q Queries) APIKey(ctx context.Context, workspaceID, id string) (*APIKey, error) {
	return one[APIKey](ctx, q, `SELECT `+apiKeyColumns+` FROM api_keys WHERE workspace_id = $1 AND id = $2`, workspaceID, id)
}

// Websites lists the websites the scope may use, oldest first.
func (q Queries) Websites(ctx context.Context, s Scope) ([]Website, error) {
	var out []Website
	return out, q.selectRows(ctx, &out, `
		SELECT `+websiteColumns+` FROM websites
		WHERE workspace_id = $1 AND (cardinality($2::text[]) = 0 OR id = ANY($2))
		ORDER BY seq`, s.WorkspaceID, array(s.WebsiteIDs))
}

// Accounts lists the channel accounts of one channel (or all, for "") that the
// scope may use, oldest first. Website chat accounts are the websites.
func (q Queries) Accounts(ctx context.Context, s Scope, channel string) ([]Account, error) {
	var out []Account
	return out, q.selectRows(ctx, &out, accountsQuery, s.WorkspaceID, channel, array(s.Channels), array(s.WebsiteIDs), "")
}

// Account returns one channel account of the workspace, whatever the key's
// restrictions; callers decide what a restricted key may do with it.
func (q Queries) Account(ctx context.Context, workspaceID, channel, id string) (*Account, error) {
	return one[Account](ctx, q, accountsQuery, workspaceID, channel, array(nil), array(nil), id)
}

// accountsQuery is the statement of Accounts and Account.
var accountsQuery = accountsSelect("$1", "$2", "$3", "$4", "$5")

// accountsSelect selects a workspace's channel accounts, website chat
// accounts being its websites, oldest first. Its arguments are SQL
// expressions, so that a statement that joins an account filters it by the
// same rules: the workspace, the channel (the empty string for all), the
// key's channels and websites (empty arrays for no restriction) and the
// account id (the empty string for all).
func accountsSelect(workspace, channel, channels, websites, id string) string {
	return fmt.Sprintf(`
	SELECT `+accountColumns+` FROM (
		SELECT `+accountColumns+`, seq AS s
		FROM channel_accounts WHERE workspace_id = %[1]s
		UNION ALL
		SELECT workspace_id, id, 'website', id, name, '', '', '', 'connected', '', true, false, seq
		FROM websites WHERE workspace_id = %[1]s
	) a
	WHERE (%[2]s = '' OR channel = %[2]s)
	  AND (cardinality(%[3]s::text[]) = 0 OR channel = ANY(%[3]s))
	  AND (cardinality(%[4]s::text[]) = 0 OR website_id = ANY(%[4]s))
	  AND (%[5]s = '' OR id = %[5]s)
	ORDER BY s, id`, workspace, channel, channels, websites, id)
}

// EmailDomain returns a workspace's email domain (any case).
func (q Queries) EmailDomain(ctx context.Context, workspaceID, domain string) (*EmailDomain, error) {
	return one[EmailDomain](ctx, q, `SELECT `+emailDomainColumns+` FROM email_domains
		WHERE workspace_id = $1 AND domain = lower($2)`, workspaceID, domain)
}

// Agent returns one agent of the workspace.
func (q Queries) Agent(ctx context.Context, workspaceID, id string) (*Agent, error) {
	return one[Agent](ctx, q, `SELECT `+agentColumns+` FROM agents WHERE workspace_id = $1 AND id = $2`, workspaceID, id)
}
