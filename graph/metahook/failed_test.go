package metahook

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lib/pq"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/seal"
)

// A failed status's delivery.error.code is the name a send's answer maps
// to (docs/whatsapp.md); a code no table names is provider_error, and the
// message keeps the provider's code and text.
func TestDeliveryErrorNames(t *testing.T) {
	for code, want := range map[int]string{131026: "recipient_unreachable", 131047: "window_closed", 131050: "recipient_opted_out",
		131049: "channel_rate_limited", 100: "invalid_request", 135000: "invalid_request", 368: "channel_restricted",
		133010: "channel_restricted", 131000: "provider_error", 131061: "provider_error"} {
		got := deliveryError([]meta.WhatsAppError{{Code: code, Title: "Some text"}})
		if got.Code != want {
			t.Errorf("%d: %+v, want code %s", code, got, want)
		}
		if wantMsg := (meta.WhatsAppError{Code: code, Title: "Some text"}).Reason(); got.Message != wantMsg {
			t.Errorf("%d: message %q, want %q", code, got.Message, wantMsg)
		}
	}
	if got := deliveryError(nil); got.Code != "provider_error" {
		t.Errorf("no errors: %+v", got)
	}
}

// A status or preference names its customer as the send side does: the
// phone in E.164 when there is one, else the business-scoped user id (also
// when recipient_id itself is one); nothing usable is "".
func TestRecipientOf(t *testing.T) {
	for _, c := range []struct{ waID, userID, want string }{
		{"15551234567", "US.13491208655302741918", "+15551234567"},
		{"", "US.13491208655302741918", "US.13491208655302741918"},
		{"US.13491208655302741918", "", "US.13491208655302741918"},
		{"not-a-phone", "", ""},
		{"", "", ""},
	} {
		if got := recipientOf(c.waID, c.userID); got != c.want {
			t.Errorf("recipientOf(%q, %q) = %q, want %q", c.waID, c.userID, got, c.want)
		}
	}
}

// A failed hook's reason class is a bounded metric label.
func TestReasonClass(t *testing.T) {
	for want, err := range map[string]error{
		"credentials": fmt.Errorf("credentials of wa_main: %w", seal.ErrOpen),
		"provider":    errors.Join(errors.New("x"), &meta.Error{Code: 190, Message: "expired"}),
		"database":    &pq.Error{Code: "40001"},
		"processing":  errors.New("metahook: wa_id \"x\": invalid phone"),
	} {
		if got := ReasonClass(err); got != want {
			t.Errorf("ReasonClass(%v) = %s, want %s", err, got, want)
		}
	}
}
