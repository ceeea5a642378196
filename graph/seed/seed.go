// Package seed loads workspace fixtures (decisions 9): parsed strictly,
// validated with the JSON path of every bad field, written in one
// transaction, idempotently.
package seed

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/apierr"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/clock"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/send"
	"github.com/msgsvc/msgsvc/graph/view"

	"github.com/msgsvc/msgsvc/repo"
)

var (
	validPlans    = []string{"free", "pro", "enterprise"}
	validStatuses = []string{"active", "suspended", "closed"}
	validScopes   = []string{"*", "conversations:read", "conversations:write", "messages:read", "messages:write", "contacts:read", "contacts:write", "webhooks:manage"}
)

func oneOf(v string, set []string) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

// Store runs the seeding transaction; repo.Store is one.
type Store interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
}

// Seeder loads fixtures.
type Seeder struct {
	Store Store
	Clock clock.Clock
}

// Seed loads a fixture in one transaction: running it twice changes nothing,
// and a bad field writes nothing at all.
func (r *Seeder) Seed(ctx context.Context, f *Fixture) error {
	return r.Store.InTx(ctx, func(q repo.Queries) error {
		for i := range f.Workspaces {
			if err := r.seedWorkspace(ctx, q, fmt.Sprintf("workspaces[%d]", i), &f.Workspaces[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

func orDefault[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// seedWorkspace validates and writes one workspace; errors carry the path.
func (r *Seeder) seedWorkspace(ctx context.Context, q repo.Queries, path string, w *FixtureWorkspace) error {
	bad := func(p, format string, args ...any) error {
		return &FixtureError{Path: path + p, Message: fmt.Sprintf(format, args...)}
	}
	// wrap gives database refusals (an id owned by another workspace, a
	// duplicate) the path of the record that caused them.
	wrap := func(p string, err error) error {
		if err == nil {
			return nil
		}
		var conflict *repo.ConflictError
		if errors.As(err, &conflict) {
			return bad(p, "conflicts with an existing record (%s)", conflict.Constraint)
		}
		return err
	}
	if !strings.HasPrefix(w.ID, "ws_") {
		return bad(".id", "must start with ws_")
	}
	ws := &repo.Workspace{ID: w.ID, Name: orDefault(w.Name, w.ID), Plan: orDefault(w.Plan, "pro"),
		Status: orDefault(w.Status, "active"), OwnerEmail: orDefault(w.OwnerEmail, ""),
		MessagesLimit: orDefault(w.MessagesLimit, 10000), RatePerSecond: 20, RatePerMinute: 300}
	if !oneOf(ws.Plan, validPlans) {
		return bad(".plan", "must be free, pro or enterprise")
	}
	if !oneOf(ws.Status, validStatuses) {
		return bad(".status", "must be active, suspended or closed")
	}
	if ws.MessagesLimit < 0 {
		return bad(".messages_limit", "must not be negative")
	}
	if w.RateLimit != nil {
		ws.RatePerSecond = orDefault(w.RateLimit.PerSecond, ws.RatePerSecond)
		ws.RatePerMinute = orDefault(w.RateLimit.PerMinute, ws.RatePerMinute)
		if ws.RatePerSecond < 1 {
			return bad(".rate_limit.per_second", "must be at least 1")
		}
		if ws.RatePerMinute < 1 {
			return bad(".rate_limit.per_minute", "must be at least 1")
		}
	}
	if err := q.UpsertWorkspace(ctx, ws); err != nil {
		return wrap(".id", err)
	}
	websites := map[string]bool{}
	for i, site := range w.Websites {
		p := fmt.Sprintf(".websites[%d]", i)
		if !strings.HasPrefix(site.ID, "web_") {
			return bad(p+".id", "must start with web_")
		}
		websites[site.ID] = true
		err := q.UpsertWebsite(ctx, &repo.Website{ID: site.ID, WorkspaceID: ws.ID, Name: site.Name, Domains: view.OrEmpty(site.Domains)})
		if err != nil {
			return wrap(p+".id", err)
		}
	}
	accounts := map[string]string{} // id -> channel
	for _, site := range w.Websites {
		accounts[site.ID] = "website"
	}
	account := func(p string, a *repo.Account, prefix string) error {
		if prefix != "" && !strings.HasPrefix(a.ID, prefix) {
			return bad(p+".id", "must start with %s", prefix)
		}
		if a.ID == "" {
			return bad(p+".id", "is required")
		}
		if !websites[a.WebsiteID] {
			return bad(p+".website_id", "names no website of this workspace")
		}
		if _, dup := accounts[a.ID]; dup {
			return bad(p+".id", "is used twice")
		}
		accounts[a.ID] = a.Channel
		a.WorkspaceID = ws.ID
		return wrap(p+".id", q.UpsertAccount(ctx, a))
	}
	for i, wa := range w.Whatsapp {
		p := fmt.Sprintf(".whatsapp[%d]", i)
		phone, err := contact.NormalizePhone(wa.PhoneNumber)
		if err != nil {
			return bad(p+".phone_number", "must be E.164 with a leading +")
		}
		if err := account(p, &repo.Account{ID: wa.ID, Channel: "whatsapp", WebsiteID: wa.WebsiteID, PhoneNumber: phone,
			Name: wa.Name, Status: nonEmpty(wa.Status, "connected"), MarketingMessages: wa.MarketingMessages,
			Processing: orDefault(wa.Processing, true)}, "wa_"); err != nil {
			return err
		}
	}
	for i, ig := range w.Instagram {
		if err := account(fmt.Sprintf(".instagram[%d]", i), &repo.Account{ID: ig.ID, Channel: "instagram",
			WebsiteID: ig.WebsiteID, Username: ig.Username, Status: nonEmpty(ig.Status, "connected"),
			Processing: orDefault(ig.Processing, true)}, "ig_"); err != nil {
			return err
		}
	}
	for i, d := range w.EmailDomains {
		p := fmt.Sprintf(".email_domains[%d].domain", i)
		if d.Domain == "" || strings.ContainsAny(d.Domain, "@ ") {
			return bad(p, "must be a domain name")
		}
		if err := q.UpsertEmailDomain(ctx, &repo.EmailDomain{WorkspaceID: ws.ID, Domain: strings.ToLower(d.Domain),
			Verified: d.Verified, Processing: orDefault(d.Processing, true)}); err != nil {
			return wrap(p, err)
		}
	}
	for i, e := range w.Email {
		p := fmt.Sprintf(".email[%d]", i)
		address, err := contact.NormalizeEmail(e.Address)
		if err != nil {
			return bad(p+".address", "must be an email address")
		}
		if err := account(p, &repo.Account{ID: e.ID, Channel: "email", WebsiteID: e.WebsiteID, Address: address,
			Status: "connected", Processing: true, ForwardingActive: e.ForwardingActive}, ""); err != nil {
			return err
		}
	}
	for i, ag := range w.Agents {
		p := fmt.Sprintf(".agents[%d].id", i)
		if !strings.HasPrefix(ag.ID, "usr_") {
			return bad(p, "must start with usr_")
		}
		if err := q.UpsertAgent(ctx, &repo.Agent{ID: ag.ID, WorkspaceID: ws.ID, Name: ag.Name, Email: ag.Email,
			Active: orDefault(ag.Active, true)}); err != nil {
			return wrap(p, err)
		}
	}
	for i, t := range w.Templates {
		p := fmt.Sprintf(".templates[%d]", i)
		switch {
		case accounts[t.WhatsappAccountID] != "whatsapp":
			return bad(p+".whatsapp_account_id", "names no WhatsApp number of this workspace")
		case t.Name == "":
			return bad(p+".name", "is required")
		case t.Language == "":
			return bad(p+".language", "is required")
		case !oneOf(t.Category, []string{"MARKETING", "UTILITY", "AUTHENTICATION"}):
			return bad(p+".category", "must be MARKETING, UTILITY or AUTHENTICATION")
		case !oneOf(t.Status, []string{"APPROVED", "PENDING", "REJECTED"}):
			return bad(p+".status", "must be APPROVED, PENDING or REJECTED")
		}
		if _, err := send.TemplateParams(t.Body); err != nil {
			return bad(p+".body", "%s", err)
		}
		id := "tpl_" + auth.HashSecret(ws.ID + "/" + t.WhatsappAccountID + "/" + t.Name + "/" + t.Language)[:24]
		if err := q.UpsertTemplate(ctx, &repo.Template{ID: id, WorkspaceID: ws.ID, WhatsappAccountID: t.WhatsappAccountID,
			Name: t.Name, Language: t.Language, Category: t.Category, Status: t.Status, Body: t.Body}); err != nil {
			return wrap(p, err)
		}
	}
	keyIDs := map[string]bool{}
	for _, k := range w.Keys {
		keyIDs[k.ID] = true
	}
	for i, k := range w.Keys {
		p := fmt.Sprintf(".keys[%d]", i)
		switch {
		case !strings.HasPrefix(k.ID, "key_"):
			return bad(p+".id", "must start with key_")
		case !auth.ValidSecret(k.Secret):
			return bad(p+".secret", "must be svc_live_ or svc_test_ and 32 base62 characters")
		case k.RolledTo != nil && !keyIDs[*k.RolledTo]:
			return bad(p+".rolled_to", "names no key of this workspace")
		case k.RolledTo != nil && k.GraceUntil == nil:
			return bad(p+".grace_until", "is required with rolled_to")
		case k.Version != nil && *k.Version != auth.ServedVersion:
			return bad(p+".version", "must be %s", auth.ServedVersion)
		}
		for j, s := range k.Scopes {
			if !oneOf(s, validScopes) {
				return bad(fmt.Sprintf("%s.scopes[%d]", p, j), "is not a scope")
			}
		}
		for j, c := range k.Channels {
			if !channels.Valid(c) {
				return bad(fmt.Sprintf("%s.channels[%d]", p, j), "is not a channel")
			}
		}
		for j, site := range k.WebsiteIDs {
			if !websites[site] {
				return bad(fmt.Sprintf("%s.website_ids[%d]", p, j), "names no website of this workspace")
			}
		}
		for j, cidr := range k.IPAllowlist {
			if !ipAllowedSyntax(cidr) {
				return bad(fmt.Sprintf("%s.ip_allowlist[%d]", p, j), "must be an IP address or CIDR range")
			}
		}
		scopes := k.Scopes
		if scopes == nil {
			scopes = []string{"*"}
		}
		key := &repo.APIKey{ID: k.ID, WorkspaceID: ws.ID, SecretHash: auth.HashSecret(k.Secret),
			Livemode: strings.HasPrefix(k.Secret, "svc_live_"), Scopes: scopes, Channels: view.OrEmpty(k.Channels),
			WebsiteIDs: view.OrEmpty(k.WebsiteIDs), IPAllowlist: view.OrEmpty(k.IPAllowlist), Revoked: k.Revoked,
			RolledTo: k.RolledTo, Version: orDefault(k.Version, auth.ServedVersion)}
		if k.ExpiresAt != nil {
			key.ExpiresAt = &k.ExpiresAt.Time
		}
		if k.GraceUntil != nil {
			key.GraceUntil = &k.GraceUntil.Time
		}
		if err := q.UpsertAPIKey(ctx, key); err != nil {
			return wrap(p+".secret", err)
		}
	}
	return r.seedHistory(ctx, q, path, w, accounts, bad, wrap)
}

// seedHistory writes a workspace's contacts and conversations with their
// messages and past timestamps.
func (r *Seeder) seedHistory(ctx context.Context, q repo.Queries, path string, w *FixtureWorkspace, accounts map[string]string,
	bad func(string, string, ...any) error, wrap func(string, error) error) error {
	now := r.Clock.Now()
	contactMode := map[string]bool{}
	for i, c := range w.Contacts {
		p := fmt.Sprintf(".contacts[%d]", i)
		if !strings.HasPrefix(c.ID, "ct_") {
			return bad(p+".id", "must start with ct_")
		}
		email, phone, err := contact.NormalizeIdentity(c.Email, c.Phone)
		if err != nil {
			field, e := ".email", apierr.New(apierr.InvalidEmail, "is not an email address")
			if ae, ok := apierr.As(err); ok {
				e = ae
			}
			if e.Code == apierr.InvalidPhone {
				field = ".phone"
			}
			return bad(p+field, "%s", e.Message)
		}
		contactMode[c.ID] = c.Livemode
		row := &repo.Contact{ID: c.ID, WorkspaceID: w.ID, Livemode: c.Livemode, Name: c.Name, Email: email,
			Phone: phone, InstagramUserID: c.InstagramUserID, OptOutWhatsapp: c.OptOuts.Whatsapp,
			OptOutEmail: c.OptOuts.Email, OptOutInstagram: c.OptOuts.Instagram, Source: "captured",
			CreatedAt: now, UpdatedAt: now}
		if err := q.UpsertContact(ctx, row); err != nil {
			return wrap(p, err)
		}
	}
	for i, c := range w.Conversations {
		p := fmt.Sprintf(".conversations[%d]", i)
		if !strings.HasPrefix(c.ID, "conv_") {
			return bad(p+".id", "must start with conv_")
		}
		if !channels.Valid(c.Channel) {
			return bad(p+".channel", "must be website, whatsapp, instagram or email")
		}
		if accounts[c.AccountID] != c.Channel {
			return bad(p+".account_id", "names no %s account of this workspace", c.Channel)
		}
		if c.ContactID != nil {
			mode, ok := contactMode[*c.ContactID]
			if !ok {
				return bad(p+".contact_id", "names no contact of this fixture workspace")
			}
			if mode != c.Livemode {
				return bad(p+".contact_id", "names a contact of the other mode")
			}
		}
		status, mode := orDefault(c.Status, "open"), orDefault(c.Mode, "ai")
		if !oneOf(status, []string{"open", "closed"}) {
			return bad(p+".status", "must be open or closed")
		}
		if !oneOf(mode, []string{"ai", "queued_for_human", "human", "external"}) {
			return bad(p+".mode", "must be ai, queued_for_human, human or external")
		}
		created := now
		if c.CreatedAt != nil {
			created = c.CreatedAt.Time
		}
		acc, err := q.Account(ctx, w.ID, c.Channel, c.AccountID)
		if err != nil {
			return err
		}
		conv := &repo.Conversation{ID: c.ID, WorkspaceID: w.ID, Livemode: c.Livemode, Channel: c.Channel,
			AccountID: c.AccountID, WebsiteID: acc.WebsiteID, ContactID: c.ContactID, Status: status, Mode: mode,
			Subject: c.Subject, AssignedAgentID: c.AssignedAgentID, Tags: view.OrEmpty(c.Tags), IntegrationReplies: true,
			MessageCount: len(c.Messages), CreatedAt: created, UpdatedAt: created, LastMessageAt: created}
		var msgs []*repo.Message
		for j, m := range c.Messages {
			mp := fmt.Sprintf("%s.messages[%d]", p, j)
			if !strings.HasPrefix(m.ID, "msg_") {
				return bad(mp+".id", "must start with msg_")
			}
			if m.Direction != "inbound" && m.Direction != "outbound" {
				return bad(mp+".direction", "must be inbound or outbound")
			}
			at := created
			if m.CreatedAt != nil {
				at = m.CreatedAt.Time
			}
			if at.Before(created) {
				return bad(mp+".created_at", "is before the conversation's created_at")
			}
			msg := &repo.Message{ID: m.ID, WorkspaceID: w.ID, Livemode: c.Livemode, ConversationID: c.ID,
				Channel: c.Channel, Direction: m.Direction, SenderType: "visitor", Type: "text", Text: m.Text,
				Status: "received", Attachments: repo.JSONB(`[]`), CreatedAt: at}
			if m.Direction == "outbound" {
				msg.SenderType, msg.Status = "api", orDefault(m.Status, "delivered")
			} else {
				conv.LastInboundAt = later(conv.LastInboundAt, at)
			}
			if at.After(conv.LastMessageAt) {
				conv.LastMessageAt = at
			}
			msgs = append(msgs, msg)
		}
		conv.UpdatedAt = conv.LastMessageAt
		if err := q.UpsertConversation(ctx, conv); err != nil {
			return wrap(p+".id", err)
		}
		for j, m := range msgs {
			if err := q.UpsertMessage(ctx, m); err != nil {
				return wrap(fmt.Sprintf("%s.messages[%d].id", p, j), err)
			}
		}
		if err := q.RecountConversation(ctx, c.ID); err != nil {
			return err
		}
	}
	return nil
}

func later(t *time.Time, u time.Time) *time.Time {
	if t == nil || u.After(*t) {
		return &u
	}
	return t
}

func nonEmpty(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func ipAllowedSyntax(entry string) bool {
	if _, _, err := net.ParseCIDR(entry); err == nil {
		return true
	}
	return net.ParseIP(entry) != nil
}
