package meta

import (
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// TestRefusalTable is the refusal table, row by row
// (codes: developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes).
func TestRefusalTable(t *testing.T) {
	cases := []struct {
		code, subcode, status int
		want                  apierr.Code
		hold                  channels.Hold
		reauth, refresh       bool
	}{
		{131047, 0, 400, apierr.WindowClosed, channels.HoldNone, false, false},
		{10, 2018278, 400, apierr.WindowClosed, channels.HoldNone, false, false},
		{10, 0, 400, apierr.ChannelRestricted, channels.HoldNone, false, false},
		{200, 0, 403, apierr.ChannelRestricted, channels.HoldNone, false, false},
		{368, 0, 400, apierr.ChannelRestricted, channels.HoldNone, false, false},
		{131031, 0, 400, apierr.ChannelRestricted, channels.HoldNone, false, false},
		{131045, 0, 400, apierr.ChannelRestricted, channels.HoldNone, false, false},
		{131048, 0, 400, apierr.ChannelRestricted, channels.HoldNone, false, false},
		{133010, 0, 400, apierr.ChannelRestricted, channels.HoldNone, false, false},
		{131008, 0, 400, apierr.InvalidRequest, channels.HoldNone, false, false},
		{131009, 0, 400, apierr.InvalidRequest, channels.HoldNone, false, false},
		{131021, 0, 400, apierr.InvalidRequest, channels.HoldNone, false, false},
		{131053, 0, 400, apierr.InvalidRequest, channels.HoldNone, false, false},
		{132005, 0, 400, apierr.InvalidRequest, channels.HoldNone, false, false},
		{132007, 0, 400, apierr.InvalidRequest, channels.HoldNone, false, false},
		{132012, 0, 400, apierr.InvalidRequest, channels.HoldNone, false, false},
		{135000, 0, 400, apierr.InvalidRequest, channels.HoldNone, false, false},
		{131049, 0, 400, apierr.ChannelRateLimited, channels.HoldMarketing, false, false},
		{132000, 0, 400, apierr.InvalidRequest, channels.HoldNone, false, false},
		{132001, 0, 400, apierr.TemplateNotApproved, channels.HoldNone, false, true},
		{132015, 0, 400, apierr.TemplateNotApproved, channels.HoldNone, false, true},
		{132016, 0, 400, apierr.TemplateNotApproved, channels.HoldNone, false, true},
		{131050, 0, 400, apierr.RecipientOptedOut, channels.HoldNone, false, false},
		{131026, 0, 400, apierr.RecipientUnreachable, channels.HoldNone, false, false},
		{551, 0, 400, apierr.RecipientUnreachable, channels.HoldNone, false, false},
		{130429, 0, 429, apierr.ChannelRateLimited, channels.HoldAccount, false, false},
		{131056, 0, 429, apierr.ChannelRateLimited, channels.HoldRecipient, false, false},
		{4, 0, 400, apierr.ChannelRateLimited, channels.HoldAccount, false, false},
		{80007, 0, 400, apierr.ChannelRateLimited, channels.HoldAccount, false, false},
		{190, 0, 401, apierr.ChannelUnavailable, channels.HoldNone, true, false},
		{131000, 0, 500, apierr.ChannelUnavailable, channels.HoldNone, false, false},
		{100, 0, 400, apierr.InvalidRequest, channels.HoldNone, false, false},
		{131061, 0, 400, apierr.ChannelUnavailable, channels.HoldNone, false, false},
		// Business-scoped User ID recipients are not supported for this message
		// (developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids).
		{131062, 0, 400, apierr.InvalidRequest, channels.HoldNone, false, false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%d_%d", c.code, c.subcode), func(t *testing.T) {
			e := &Error{HTTPStatus: c.status, Code: c.code, Subcode: c.subcode, Message: fmt.Sprintf("(#%d) Some text", c.code)}
			r := channels.AsRefusal(e)
			if r.Code != c.want || r.Hold != c.hold || r.NeedsReauth != c.reauth || r.RefreshTemplates != c.refresh {
				t.Fatalf("got %+v, want code %s hold %d reauth %v refresh %v", r, c.want, c.hold, c.reauth, c.refresh)
			}
			if c.want == apierr.ChannelRateLimited && r.RetryAfter != channels.DefaultRetryAfter {
				t.Fatalf("RetryAfter %v, want the 60 s default", r.RetryAfter)
			}
			if r.MarketingOptOut != (c.code == 131050) {
				t.Fatalf("MarketingOptOut %v", r.MarketingOptOut)
			}
			if r.Reason != fmt.Sprintf("%d: Some text", c.code) && r.Reason != fmt.Sprintf("%d/%d: Some text", c.code, c.subcode) {
				t.Fatalf("reason %q does not keep the provider's code and text", r.Reason)
			}
			if c.want != apierr.ChannelRateLimited && r.RetryAfter != 0 {
				t.Fatalf("RetryAfter %v on a refusal that is no rate limit", r.RetryAfter)
			}
		})
	}
}

func TestReasonCarriesCodeAndText(t *testing.T) {
	e := &Error{Code: 131047, Message: "(#131047) Re-engagement message", Details: "Message failed to send because more than 24 hours have passed"}
	want := "131047: Re-engagement message (Message failed to send because more than 24 hours have passed)"
	if got := e.Reason(); got != want {
		t.Fatalf("Reason %q, want %q", got, want)
	}
	e = &Error{Code: 10, Subcode: 2018278, Message: "(#10) This message is sent outside of allowed window."}
	if got := e.Reason(); got != "10/2018278: This message is sent outside of allowed window." {
		t.Fatalf("Reason %q", got)
	}
	if got := channels.AsRefusal(e).Reason; got != e.Reason() {
		t.Fatalf("the refusal's reason %q is not the error's %q", got, e.Reason())
	}
}

func TestNoEnvelope(t *testing.T) {
	r := (&Error{HTTPStatus: 401, Message: "the provider answered HTTP 401"}).Refusal()
	if r.Code != apierr.ChannelUnavailable || !r.NeedsReauth {
		t.Fatalf("a bare 401: %+v", r)
	}
	r = (&Error{HTTPStatus: 502, Message: "the provider answered HTTP 502"}).Refusal()
	if r.Code != apierr.ChannelUnavailable || r.NeedsReauth {
		t.Fatalf("a bare 502: %+v", r)
	}
	r = (&Error{Timeout: true, Message: "the provider did not answer in time"}).Refusal()
	if r.Code != apierr.ChannelUnavailable || r.Reason != "the provider did not answer in time" {
		t.Fatalf("a timeout: %+v", r)
	}
	var wrapped error = fmt.Errorf("sending: %w", &Error{Code: 131050})
	var got *channels.Refusal
	if !errors.As(wrapped, &got) || got.Code != apierr.RecipientOptedOut {
		t.Fatalf("errors.As through a wrap: %+v", got)
	}
}

func TestRetryAfterHeaders(t *testing.T) {
	h := http.Header{}
	h.Set("Retry-After", "17")
	if got := retryAfter(h); got != 17*time.Second {
		t.Fatalf("Retry-After 17: %v", got)
	}
	h = http.Header{}
	h.Set("X-Business-Use-Case-Usage", `{"102290129340398":[{"type":"whatsapp","call_count":100,"estimated_time_to_regain_access":3},{"type":"x","estimated_time_to_regain_access":1}]}`)
	if got := retryAfter(h); got != 3*time.Minute {
		t.Fatalf("usage header: %v", got)
	}
	if got := retryAfter(http.Header{}); got != 0 {
		t.Fatalf("no header: %v", got)
	}
	e := &Error{Code: 130429, RetryAfter: 3 * time.Minute}
	if r := e.Refusal(); r.RetryAfter != 3*time.Minute {
		t.Fatalf("a rate limit with a time keeps it: %v", r.RetryAfter)
	}
}
