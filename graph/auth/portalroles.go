package auth

import (
	"context"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// ForField returns the caller if it is the admin token or a signed-in
// member whose role may use the root field (CheckField, the role table);
// an API key is refused 403 too. The portal's services call it
// themselves, so their rule holds whatever field checks run before it.
func ForField(ctx context.Context, field string) (*Actor, error) {
	a, err := From(ctx)
	if err != nil {
		return nil, err
	}
	if !a.Admin && a.MemberID == "" {
		return nil, apierr.New(apierr.Forbidden, "%s is not open to an API key.", field)
	}
	if err := a.CheckField(field); err != nil {
		return nil, err
	}
	return a, nil
}
