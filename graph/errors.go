package graph

import (
	"errors"

	"github.com/msgsvc/msgsvc/graph/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// notFound turns repo.ErrNotFound into the resource's not-found code and
// passes other errors through.
func notFound(err error, code apierr.Code, what, id string) error {
	if errors.Is(err, repo.ErrNotFound) {
		return apierr.New(code, "No %s %s.", what, id)
	}
	return err
}
