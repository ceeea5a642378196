// Package apierrtest checks the API errors a rule answers.
package apierrtest

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Want fails t unless err is the API error code whose message holds
// fragment; code "" wants no error. Each failure says which value differed.
func Want(t testing.TB, err error, code apierr.Code, fragment string) {
	t.Helper()
	if code == "" {
		if err != nil {
			t.Errorf("error: got %v, want none", err)
		}
		return
	}
	e, ok := apierr.As(err)
	switch {
	case !ok:
		t.Errorf("error: got %v, want API error %s", err, code)
	case e.Code != code:
		t.Errorf("error code: got %s (%q), want %s", e.Code, e.Message, code)
	case !strings.Contains(e.Message, fragment):
		t.Errorf("error message: got %q, want it to contain %q", e.Message, fragment)
	}
}
