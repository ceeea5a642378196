package channels

import (
	"errors"
	"testing"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// lost is a provider call whose answer never came.
type lost struct{}

func (lost) Error() string        { return "timeout after the request was written" }
func (lost) OutcomeUnknown() bool { return true }

// TestSendPartsLaterFailures: a refusal of the first part is the send's
// error; a refusal of a later one keeps the parts sent and names the
// refusal; a later part left unknown is provider_unknown, never a refusal
// of something that may have gone out.
func TestSendPartsLaterFailures(t *testing.T) {
	refused := &Refusal{Code: apierr.RecipientUnreachable, Reason: "no"}
	send := func(fail error, at int) func(int) (string, error) {
		return func(i int) (string, error) {
			if i == at {
				return "", fail
			}
			return "wamid." + string(rune('a'+i)), nil
		}
	}
	if r, err := SendParts(3, send(refused, 0)); r != nil || !errors.Is(err, error(refused)) {
		t.Errorf("first part refused: %+v %v", r, err)
	}
	if r, err := SendParts(3, send(lost{}, 0)); r != nil || err == nil {
		t.Errorf("first part unknown: %+v %v, want the error", r, err)
	}
	r, err := SendParts(3, send(refused, 1))
	if err != nil || len(r.ProviderIDs) != 1 || r.Failed != refused {
		t.Errorf("second part refused: %+v %v", r, err)
	}
	r, err = SendParts(3, send(lost{}, 2))
	if err != nil || len(r.ProviderIDs) != 2 || r.Failed == nil || r.Failed.Code != "provider_unknown" {
		t.Errorf("third part unknown: %+v %v, want provider_unknown after 2 parts", r, err)
	}
	if r, err := SendParts(2, send(nil, -1)); err != nil || len(r.ProviderIDs) != 2 || r.Failed != nil {
		t.Errorf("all sent: %+v %v", r, err)
	}
}
