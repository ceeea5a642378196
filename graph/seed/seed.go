// Package seed loads workspace fixtures (docs/api.md, Fixtures): parsed strictly,
// validated with the JSON path of every bad field, written in one
// transaction, idempotently.
package seed

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

var (
	validPlans    = []string{"free", "pro", "enterprise"}
	validStatuses = []string{"active", "suspended", "closed"}
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
	// Seal seals provider credentials, DKIM keys and identity secrets at rest.
	Seal seal.Key
}

// Seed loads a fixture in one transaction: running it twice changes nothing,
// and a bad field writes nothing at all.
func (s *Seeder) Seed(ctx context.Context, f *Fixture) error {
	return s.Store.InTx(ctx, func(q repo.Queries) error {
		for i := range f.Workspaces {
			ws := &workspaceSeed{ctx: ctx, q: q, path: fmt.Sprintf("workspaces[%d]", i), w: &f.Workspaces[i],
				now: s.Clock.Now(), websites: map[string]bool{}, accounts: map[string]string{}, contactMode: map[string]bool{},
				seal: s.Seal, vault: credentials.Vault{Key: s.Seal}}
			if err := ws.run(); err != nil {
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

// workspaceSeed is the seeding of one workspace: what it wrote so far, for
// the checks of later fields, and the JSON path its errors carry.
type workspaceSeed struct {
	ctx      context.Context
	q        repo.Queries
	path     string
	w        *FixtureWorkspace
	now      time.Time
	seal     seal.Key
	vault    credentials.Vault
	websites map[string]bool
	accounts map[string]string // id -> channel
	// contactMode is each seeded contact's livemode.
	contactMode map[string]bool
}

// run validates and writes the workspace, step by step in fixture order.
func (s *workspaceSeed) run() error {
	for _, step := range []func() error{s.workspace, s.websiteList, s.whatsappAndInstagram, s.email,
		s.agents, s.processing, s.templates, s.keys, s.contacts, s.conversations} {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

// bad is a fixture error at a path under the workspace.
func (s *workspaceSeed) bad(p, format string, args ...any) error {
	return &FixtureError{Path: s.path + p, Message: fmt.Sprintf(format, args...)}
}

// wrap gives database refusals (an id owned by another workspace, a
// duplicate) the path of the record that caused them.
func (s *workspaceSeed) wrap(p string, err error) error {
	if err == nil {
		return nil
	}
	var conflict *repo.ConflictError
	if errors.As(err, &conflict) {
		return s.bad(p, "conflicts with an existing record (%s)", conflict.Constraint)
	}
	return err
}

// workspace validates and writes the workspace row.
func (s *workspaceSeed) workspace() error {
	if !strings.HasPrefix(s.w.ID, "ws_") {
		return s.bad(".id", "must start with ws_")
	}
	ws := &repo.Workspace{ID: s.w.ID, Name: orDefault(s.w.Name, s.w.ID), Plan: orDefault(s.w.Plan, "pro"),
		Status: orDefault(s.w.Status, "active"), OwnerEmail: orDefault(s.w.OwnerEmail, ""),
		MessagesLimit: orDefault(s.w.MessagesLimit, 10000), RatePerSecond: 20, RatePerMinute: 300}
	if !oneOf(ws.Plan, validPlans) {
		return s.bad(".plan", "must be free, pro or enterprise")
	}
	if !oneOf(ws.Status, validStatuses) {
		return s.bad(".status", "must be active, suspended or closed")
	}
	if ws.MessagesLimit < 0 {
		return s.bad(".messages_limit", "must not be negative")
	}
	if s.w.RateLimit != nil {
		ws.RatePerSecond = orDefault(s.w.RateLimit.PerSecond, ws.RatePerSecond)
		ws.RatePerMinute = orDefault(s.w.RateLimit.PerMinute, ws.RatePerMinute)
		if ws.RatePerSecond < 1 {
			return s.bad(".rate_limit.per_second", "must be at least 1")
		}
		if ws.RatePerMinute < 1 {
			return s.bad(".rate_limit.per_minute", "must be at least 1")
		}
	}
	if err := s.q.UpsertWorkspace(s.ctx, ws); err != nil {
		return s.wrap(".id", err)
	}
	return nil
}

// websiteList writes the websites; accounts name them.
func (s *workspaceSeed) websiteList() error {
	for i, site := range s.w.Websites {
		p := fmt.Sprintf(".websites[%d]", i)
		if !strings.HasPrefix(site.ID, "web_") {
			return s.bad(p+".id", "must start with web_")
		}
		s.websites[site.ID] = true
		err := s.q.UpsertWebsite(s.ctx, &repo.Website{ID: site.ID, WorkspaceID: s.w.ID, Name: site.Name, Domains: view.OrEmpty(site.Domains)})
		if err != nil {
			return s.wrap(p+".id", err)
		}
		if err := s.widget(p, site.ID, site.Widget); err != nil {
			return err
		}
	}
	for _, site := range s.w.Websites {
		s.accounts[site.ID] = "website"
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
