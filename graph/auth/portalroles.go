package auth

import (
	"context"
	"slices"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// ForRoles returns the caller if it is the admin token or a signed-in
// member of one of the roles; an API key, or a member of another role, is
// refused 403 (what names the operation in the message). The portal's
// services call it themselves, so a rule holds whatever field checks run
// before it.
func ForRoles(ctx context.Context, what string, roles ...string) (*Actor, error) {
	a, err := From(ctx)
	if err != nil {
		return nil, err
	}
	if a.Admin || a.MemberID != "" && slices.Contains(roles, a.Role) {
		return a, nil
	}
	who := "an API key"
	if a.MemberID != "" {
		who = "the " + a.Role + " role"
	}
	return nil, apierr.New(apierr.InsufficientScope, "%s is not open to %s.", what, who)
}

// Role sets of the portal (app.md section 1).
var (
	// DeveloperRoles manage keys and webhooks and read usage, channels,
	// deliveries and request logs.
	DeveloperRoles = []string{RoleOwner, RoleAdmin, RoleDeveloper}
	// AdminRoles do everything of the workspace (deleting a conversation).
	AdminRoles = []string{RoleOwner, RoleAdmin}
)
