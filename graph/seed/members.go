package seed

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/repo"
)

// person is a fixture's agent (role agent) or member (her own role).
type person struct {
	path, id, name, email, role string
	active                      *bool
}

// agents writes the workspace's people: the agents (members with role
// agent) and the members. Ids and emails (in any case) are unique, and an
// address is one person's across the installation.
func (s *workspaceSeed) agents() error {
	var people []person
	for i, ag := range s.w.Agents {
		people = append(people, person{fmt.Sprintf(".agents[%d]", i), ag.ID, ag.Name, ag.Email, auth.RoleAgent, ag.Active})
	}
	for i, m := range s.w.Members {
		p := fmt.Sprintf(".members[%d]", i)
		if strings.TrimSpace(m.Email) == "" {
			return s.bad(p+".email", "is required: a member signs in with it")
		}
		people = append(people, person{p, m.ID, m.Name, m.Email, m.Role, m.Active})
	}
	ids, emails := map[string]string{}, map[string]string{}
	for _, p := range people {
		email := strings.ToLower(strings.TrimSpace(p.email))
		switch {
		case !strings.HasPrefix(p.id, "usr_"):
			return s.bad(p.path+".id", "must start with usr_")
		case ids[p.id] != "":
			return s.bad(p.path+".id", "is used twice (also at %s%s)", s.path, ids[p.id])
		case !slices.Contains(auth.Roles, p.role):
			return s.bad(p.path+".role", "must be owner, admin, developer or agent")
		case email != "" && emails[email] != "":
			return s.bad(p.path+".email", "%s is used twice (also at %s%s): an address is one person's", email, s.path, emails[email])
		}
		ids[p.id] = p.path
		if email != "" {
			emails[email] = p.path
		}
		err := s.q.UpsertAgent(s.ctx, &repo.Agent{ID: p.id, WorkspaceID: s.w.ID, Name: p.name, Email: email,
			Active: orDefault(p.active, true), Role: p.role})
		if conflict, ok := errors.AsType[*repo.ConflictError](err); ok && conflict.Constraint == "agents_email_key" {
			return s.bad(p.path+".email", "%s is the address of another member of this installation: an address is one person's", email)
		}
		if err != nil {
			return s.wrap(p.path+".id", err)
		}
	}
	return nil
}
