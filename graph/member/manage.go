package member

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Members lists the workspace's members: every role sees the active ones
// (the inbox's "Assign to"); owners and the admin token see all.
func (s *Service) Members(ctx context.Context) ([]*model.Member, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	rows, err := s.Store.Members(ctx, a.WorkspaceID)
	if err != nil {
		return nil, err
	}
	all := a.MemberID == "" || a.Role == auth.RoleOwner
	out := []*model.Member{}
	for i := range rows {
		if rows[i].Active || all {
			out = append(out, View(&rows[i]))
		}
	}
	return out, nil
}

func checkRole(role string) error {
	if !slices.Contains(auth.Roles, role) {
		return apierr.New(apierr.InvalidRequest, "%q is no role; one of owner, admin, developer, agent.", role)
	}
	return nil
}

// Invite adds a member and mails her a sign-in code (409 member_exists
// when the address is a member's, of any workspace).
func (s *Service) Invite(ctx context.Context, email, name, role string) (*model.Member, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	email = NormalEmail(email)
	name = strings.TrimSpace(name)
	if err := checkEmail(email); err != nil {
		return nil, err
	}
	if err := checkRole(role); err != nil {
		return nil, err
	}
	if name == "" || len(name) > 200 {
		return nil, apierr.New(apierr.InvalidRequest, "A member needs a name of at most 200 characters.")
	}
	m := &repo.Agent{ID: repo.NewID("usr_", s.Clock.Now()), WorkspaceID: a.WorkspaceID, Name: name, Email: email,
		Active: true, Role: role}
	if err := s.Store.InsertMember(ctx, m); err != nil {
		if _, ok := errors.AsType[*repo.ConflictError](err); ok {
			return nil, apierr.New(apierr.MemberExists, "%s is already a member's address.", email)
		}
		return nil, err
	}
	code, err := s.issue(ctx, email, PurposeSignIn, &m.ID, []string{PurposeSignIn})
	if err == nil {
		s.mailCode(ctx, email, "You are invited to msgsvc: your sign-in code "+code,
			"You were added to a msgsvc workspace as "+role+". Your code to sign in is "+code+
				".\n\nIt works once, for 10 minutes; after that, ask for a new code on the sign-in page with this address.\n", code)
	} else if _, limited := apierr.As(err); !limited {
		return nil, err
	}
	return View(m), nil
}

// UpdateRole changes a member's role; the last active owner keeps hers
// (409 last_owner).
func (s *Service) UpdateRole(ctx context.Context, id, role string) (*model.Member, error) {
	if err := checkRole(role); err != nil {
		return nil, err
	}
	return s.change(ctx, id, func(q repo.Queries, m *repo.Agent) error {
		if m.Role == auth.RoleOwner && role != auth.RoleOwner {
			if err := lastOwner(ctx, q, m); err != nil {
				return err
			}
		}
		m.Role = role
		return q.SetMemberRole(ctx, m.WorkspaceID, m.ID, role)
	})
}

// SetActive switches a member on or off; off ends her sessions at once
// (repo.SetAgentActive), and the last active owner stays on (409
// last_owner).
func (s *Service) SetActive(ctx context.Context, id string, active bool) (*model.Member, error) {
	return s.change(ctx, id, func(q repo.Queries, m *repo.Agent) error {
		if !active && m.Role == auth.RoleOwner {
			if err := lastOwner(ctx, q, m); err != nil {
				return err
			}
		}
		m.Active = active
		return q.SetAgentActive(ctx, m.WorkspaceID, m.ID, active)
	})
}

// change runs a change of one member of the caller's workspace in a
// transaction (404 member_not_found for another's id).
func (s *Service) change(ctx context.Context, id string, fn func(repo.Queries, *repo.Agent) error) (*model.Member, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	var out *repo.Agent
	err = s.Store.InTx(ctx, func(q repo.Queries) error {
		if _, err := q.LockActiveOwners(ctx, a.WorkspaceID); err != nil {
			return err
		}
		m, err := q.Agent(ctx, a.WorkspaceID, id)
		if errors.Is(err, repo.ErrNotFound) {
			return apierr.New(apierr.MemberNotFound, "No member %s.", id)
		}
		if err != nil {
			return err
		}
		out = m
		return fn(q, m)
	})
	if err != nil {
		return nil, err
	}
	return View(out), nil
}

// lastOwner refuses to take the owner role or activity from the last
// active owner (the owners are locked by change).
func lastOwner(ctx context.Context, q repo.Queries, m *repo.Agent) error {
	owners, err := q.LockActiveOwners(ctx, m.WorkspaceID)
	if err != nil {
		return err
	}
	if m.Active && len(owners) <= 1 {
		return apierr.New(apierr.LastOwner, "")
	}
	return nil
}
