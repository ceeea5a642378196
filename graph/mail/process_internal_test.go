package mail

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lib/pq"
)

// A failed mail's reason class, a bounded metric label: "database" for
// Postgres' errors and timeouts, "processing" for the rest (a panic too).
func TestReasonClass(t *testing.T) {
	for err, want := range map[error]string{
		fmt.Errorf("mail: im_1 to a@b.test: %w", &pq.Error{Code: "40001"}): "database",
		fmt.Errorf("mail: im_1: %w", context.DeadlineExceeded):             "database",
		errors.New("mail: im_1: processing panicked: boom"):                "processing",
	} {
		if got := reasonClass(err); got != want {
			t.Errorf("reasonClass(%v) = %s, want %s", err, got, want)
		}
	}
}
