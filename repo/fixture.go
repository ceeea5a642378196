package repo

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Template is a WhatsApp message template of a number.
type Template struct {
	ID                string `db:"id"`
	WorkspaceID       string `db:"workspace_id"`
	WhatsappAccountID string `db:"whatsapp_account_id"`
	// Livemode: synced from the provider (live keys) rather than the
	// fixture's (test keys).
	Livemode bool   `db:"livemode"`
	Name     string `db:"name"`
	Language string `db:"language"`
	Category string `db:"category"`
	Status   string `db:"status"`
	Body     string `db:"body"`
	// Components are Meta's component definitions (JSON array), nil for a
	// template known by its body only; ParameterFormat is POSITIONAL,
	// NAMED or "" (positional).
	Components      JSONB  `db:"components"`
	ParameterFormat string `db:"parameter_format"`
}

// EmailDomain is a sending and receiving domain of a workspace.
type EmailDomain struct {
	WorkspaceID string `db:"workspace_id"`
	Domain      string `db:"domain"`
	Verified    bool   `db:"verified"`
	Processing  bool   `db:"processing"`
	// ReturnPathDomain is the domain of the envelope sender when set
	// (graph/mail.ReturnPath).
	ReturnPathDomain string `db:"return_path_domain"`
}

const emailDomainColumns = `workspace_id, domain, verified, processing, return_path_domain`

// upsert inserts a row or rewrites it in place; a row with the same key in
// another workspace is refused, so fixtures cannot take over others' ids.
func (q Queries) upsert(ctx context.Context, table, conflict, columnList string, row any, keep ...string) error {
	columns := strings.Split(strings.Join(strings.Fields(columnList), ""), ",")
	sets := make([]string, 0, len(columns))
	for _, c := range columns {
		if !strings.Contains(conflict, c) && !slices.Contains(keep, c) {
			sets = append(sets, fmt.Sprintf("%s = EXCLUDED.%s", c, c))
		}
	}
	query := fmt.Sprintf(`INSERT INTO %s AS t (%s) VALUES (:%s) ON CONFLICT (%s) DO UPDATE SET %s`,
		table, strings.Join(columns, ", "), strings.Join(columns, ", :"), conflict, strings.Join(sets, ", "))
	if table != "workspaces" {
		query += " WHERE t.workspace_id = EXCLUDED.workspace_id"
	}
	n, err := sqlxNamedExec(ctx, q, query, row)
	if err != nil {
		return err
	}
	if n == 0 {
		return &ConflictError{Constraint: table + "_id_in_other_workspace"}
	}
	return nil
}

// UpsertWorkspace stores a workspace.
func (q Queries) UpsertWorkspace(ctx context.Context, w *Workspace) error {
	return q.upsert(ctx, "workspaces", "id", workspaceColumns, w)
}

// UpsertWebsite stores a website.
func (q Queries) UpsertWebsite(ctx context.Context, w *Website) error {
	return q.upsert(ctx, "websites", "id", websiteColumns, w)
}

// UpsertAccount stores a WhatsApp, Instagram or email account.
func (q Queries) UpsertAccount(ctx context.Context, a *Account) error {
	return q.upsert(ctx, "channel_accounts", "workspace_id, id", accountColumns, a)
}

// UpsertEmailDomain stores an email domain.
func (q Queries) UpsertEmailDomain(ctx context.Context, d *EmailDomain) error {
	return q.upsert(ctx, "email_domains", "workspace_id, domain", emailDomainColumns, d)
}

// UpsertAgent stores a member (role agent when a.Role is empty).
func (q Queries) UpsertAgent(ctx context.Context, a *Agent) error {
	if a.Role == "" {
		a.Role = "agent"
	}
	return q.upsert(ctx, "agents", "id", agentFixtureColumns, a)
}

// UpsertTemplate stores a template.
func (q Queries) UpsertTemplate(ctx context.Context, t *Template) error {
	return q.upsert(ctx, "templates", "id", templateColumns, t)
}

// UpsertAPIKey stores a key.
func (q Queries) UpsertAPIKey(ctx context.Context, k *APIKey) error {
	return q.upsert(ctx, "api_keys", "id", apiKeyColumns, k)
}

// UpsertContact stores a contact as the fixture gives it.
func (q Queries) UpsertContact(ctx context.Context, c *Contact) error {
	return q.upsert(ctx, "contacts", "id", contactColumns, c,
		"created_at", "updated_at", "last_seen_at")
}

// UpsertConversation stores a conversation as the fixture gives it.
func (q Queries) UpsertConversation(ctx context.Context, c *Conversation) error {
	return q.upsert(ctx, "conversations", "id", conversationTableColumns, c)
}

// UpsertMessage stores a message as the fixture gives it.
func (q Queries) UpsertMessage(ctx context.Context, m *Message) error {
	return q.upsert(ctx, "messages", "id", messageColumns, m)
}

// templateColumns are the columns of a Template.
const templateColumns = `id, workspace_id, livemode, whatsapp_account_id, name, language, category, status, body,
	components, parameter_format`

// Templates lists a workspace's templates of one mode, optionally of some
// numbers.
func (q Queries) Templates(ctx context.Context, s Scope, accountIDs []string) ([]Template, error) {
	var out []Template
	return out, q.selectRows(ctx, &out, `SELECT `+templateColumns+` FROM templates WHERE workspace_id = $1
		AND livemode = $2 AND (cardinality($3::text[]) = 0 OR whatsapp_account_id = ANY($3)) ORDER BY name, language`,
		s.WorkspaceID, s.Livemode, array(accountIDs))
}

// RecountConversation derives a conversation's message count and times from
// its stored messages, so loading a fixture again keeps the counters true to
// messages added since.
func (q Queries) RecountConversation(ctx context.Context, id string) error {
	_, err := q.exec(ctx, `UPDATE conversations c SET message_count = m.n,
		last_message_at = greatest(c.created_at, coalesce(m.last, c.created_at)),
		last_inbound_at = m.last_inbound,
		updated_at = greatest(c.updated_at, coalesce(m.last, c.created_at))
		FROM (SELECT count(*) AS n, max(created_at) AS last,
		             max(created_at) FILTER (WHERE direction = 'inbound') AS last_inbound
		      FROM messages WHERE conversation_id = $1) m
		WHERE c.id = $1`, id)
	return err
}
