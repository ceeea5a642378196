package auth

import (
	"context"
	"slices"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// ForField returns the caller if it is the admin token or a signed-in
// member whose role may use the root field (fieldRoles); an API key, or a
// member of another role, is refused 403. The portal's services call it
// themselves, so their rule holds whatever field checks run before it.
func ForField(ctx context.Context, field string) (*Actor, error) {
	a, err := From(ctx)
	if err != nil {
		return nil, err
	}
	if a.Admin || a.MemberID != "" && slices.Contains(fieldRoles[field], a.Role) {
		return a, nil
	}
	who := "an API key"
	if a.MemberID != "" {
		who = "the " + a.Role + " role"
	}
	return nil, apierr.New(apierr.Forbidden, "%s is not open to %s.", field, who)
}
