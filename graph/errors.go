package graph

import (
	"errors"
	"fmt"

	"github.com/msgsvc/msgsvc/repo"
)

// Error is a failure the caller can act on: one of the spec's error codes and
// a message for a person. Anything else is internal and answered as a 500.
type Error struct {
	Code    string
	Message string
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Fail returns an Error with a formatted message.
func Fail(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// AsError returns the Error inside err, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// notFound turns repo.ErrNotFound into the resource's not-found code and
// passes other errors through.
func notFound(err error, code, what, id string) error {
	if errors.Is(err, repo.ErrNotFound) {
		return Fail(code, "No %s %s.", what, id)
	}
	return err
}
