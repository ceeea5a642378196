package meta

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Error is a failed Graph API call: Meta's error envelope
// ({"error":{"message","type","code","error_subcode","error_data":{"details"},
// "fbtrace_id"}}), or a call that got no answer (Timeout, Err). errors.As
// turns it into the *channels.Refusal it maps to (see Refusal).
type Error struct {
	// HTTPStatus is the answer's status, 0 when none came.
	HTTPStatus int
	Code       int
	Subcode    int
	Type       string
	Message    string
	Details    string
	FBTraceID  string
	// Timeout: no answer within the client's timeout.
	Timeout bool
	// Unanswered: the request was written but its answer never came whole
	// (a timeout, a reset or an EOF after the write, a 2xx whose body broke
	// off), so Meta may have acted on it (OutcomeUnknown).
	Unanswered bool
	// RetryAfter is the wait the answer asked for (Retry-After, or Meta's
	// usage headers' estimated_time_to_regain_access), 0 when none.
	RetryAfter time.Duration
	Err        error
}

// Error is the code, the subcode and Meta's text, for logs.
func (e *Error) Error() string {
	if e.Code == 0 {
		if e.HTTPStatus != 0 {
			return fmt.Sprintf("meta: HTTP %d: %s", e.HTTPStatus, e.Message)
		}
		return "meta: " + e.Message
	}
	return "meta: " + e.Reason()
}

// OutcomeUnknown says the request went out and no answer came: for a send,
// the customer may have the message (channels.OutcomeUnknown).
func (e *Error) OutcomeUnknown() bool { return e.Unanswered }

// Unwrap is the transport error, if any.
func (e *Error) Unwrap() error { return e.Err }

// As lets errors.As(err, &refusal) find the refusal an Error maps to, so the
// send pipeline's one mapping (channels.AsRefusal) sees provider answers.
func (e *Error) As(target any) bool {
	if p, ok := target.(**channels.Refusal); ok {
		*p = e.Refusal()
		return true
	}
	return false
}

var codePrefix = regexp.MustCompile(`^\(#\d+\)\s*`)

// Reason is the provider's code (and subcode) with its text, as a
// refusal and delivery.error carry it: "131047: Re-engagement message".
func (e *Error) Reason() string {
	text := strings.TrimSpace(codePrefix.ReplaceAllString(e.Message, ""))
	if e.Details != "" && !strings.Contains(text, e.Details) {
		if text == "" {
			text = e.Details
		} else {
			text += " (" + e.Details + ")"
		}
	}
	if e.Code == 0 {
		return text
	}
	code := strconv.Itoa(e.Code)
	if e.Subcode != 0 {
		code += "/" + strconv.Itoa(e.Subcode)
	}
	if text == "" {
		return code
	}
	return code + ": " + text
}

// rateLimit says whether a code is one of Meta's throttling codes and what
// it holds back: 130429 (a number's throughput), 131056 (pair rate: one
// recipient), 131049 (one recipient's marketing messages: Meta's per-user
// marketing limit, "healthy ecosystem engagement", counts marketing
// templates only, so that customer still gets service and utility
// messages; https://developers.facebook.com/documentation/business-messaging/whatsapp/support/error-codes/),
// 4 (application), 17 (user), 32 (page), 613 (calls per hour), 80000-80014
// (business use case limits; 80002 Instagram, 80007 WhatsApp).
func rateLimit(code int) (bool, channels.Hold) {
	switch {
	case code == 131049:
		return true, channels.HoldMarketing
	case code == 131056:
		return true, channels.HoldRecipient
	case code == 130429, code == 4, code == 17, code == 32, code == 613, code >= 80000 && code <= 80014:
		return true, channels.HoldAccount
	}
	return false, channels.HoldNone
}

// invalidCodes are Meta's answers to a malformed or invalid request:
// 100 invalid parameter, 131008 required parameter missing,
// 131009 parameter value invalid, 131021 recipient is the sender, 131053
// media upload error, 131062 a message (an authentication template with a
// one-tap, zero-tap or copy-code button) that cannot go to a
// business-scoped user id and needs the customer's phone
// (developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids),
// 132000 template parameter count, 132005 translated text too long, 132007
// template format character policy, 132012 template parameter format,
// 135000 generic user error.
var invalidCodes = map[int]bool{100: true, 131008: true, 131009: true, 131021: true, 131053: true,
	131062: true, 132000: true, 132005: true, 132007: true, 132012: true, 135000: true}

// restrictedCodes are account or policy blocks: 10
// permission denied, 200 permission error, 368 temporarily blocked for
// policy violations, 131031 account locked, 131045 number not registered
// (certificate), 131048 spam rate limit, 133010 number not registered.
var restrictedCodes = map[int]bool{10: true, 200: true, 368: true, 131031: true, 131045: true,
	131048: true, 133010: true}

// Classify is the API code a Meta code maps to (docs/whatsapp.md, docs/instagram.md), for a
// send's answer and a failed status's delivery.error alike;
// channel_unavailable for a code no table names.
func Classify(code, subcode int) apierr.Code {
	switch {
	case code == 131047, code == 10 && (subcode == 2018278 || subcode == 2534022):
		// Instagram: outside the allowed window (2018278; 2534022 in some
		// client maps). Other code 10 answers are permission problems.
		return apierr.WindowClosed
	case invalidCodes[code]:
		return apierr.InvalidRequest
	case restrictedCodes[code]:
		return apierr.ChannelRestricted
	case code == 132001, code == 132015, code == 132016:
		return apierr.TemplateNotApproved
	case code == 131050:
		return apierr.RecipientOptedOut
	case code == 131026, code == 551:
		return apierr.RecipientUnreachable
	}
	if limited, _ := rateLimit(code); limited {
		return apierr.ChannelRateLimited
	}
	return apierr.ChannelUnavailable
}

// Refusal maps the error per the refusal table (Classify; docs/whatsapp.md);
// anything the tables do not name (an unknown code, a 5xx, a timeout, a
// connection error) is channel_unavailable with the provider's code and
// text as the reason.
func (e *Error) Refusal() *channels.Refusal {
	r := &channels.Refusal{Code: Classify(e.Code, e.Subcode), Reason: e.Reason()}
	if r.Reason == "" {
		r.Reason = "the provider could not be reached"
	}
	switch e.Code {
	case 132001, 132015, 132016:
		r.RefreshTemplates = true
	case 131050:
		r.MarketingOptOut = true
	case 190:
		r.NeedsReauth = true
	case 0:
		// No envelope: a 401 is a token the provider no longer takes (a
		// media URL answers so when the token expired).
		r.NeedsReauth = e.HTTPStatus == http.StatusUnauthorized
	}
	if limited, hold := rateLimit(e.Code); limited {
		r.Hold, r.RetryAfter = hold, e.RetryAfter
		if r.RetryAfter <= 0 {
			r.RetryAfter = channels.DefaultRetryAfter
		}
	}
	return r
}

type envelope struct {
	Error *struct {
		Message   string `json:"message"`
		Type      string `json:"type"`
		Code      int    `json:"code"`
		Subcode   int    `json:"error_subcode"`
		FBTraceID string `json:"fbtrace_id"`
		ErrorData *struct {
			Details string `json:"details"`
		} `json:"error_data"`
	} `json:"error"`
}

// errorFromAnswer reads a non-2xx answer: Meta's envelope when there is
// one, the HTTP status otherwise.
func errorFromAnswer(resp *http.Response, raw []byte) *Error {
	e := &Error{HTTPStatus: resp.StatusCode, RetryAfter: retryAfter(resp.Header)}
	var env envelope
	if json.Unmarshal(raw, &env) == nil && env.Error != nil {
		x := env.Error
		e.Code, e.Subcode, e.Type, e.Message, e.FBTraceID = x.Code, x.Subcode, x.Type, x.Message, x.FBTraceID
		if x.ErrorData != nil {
			e.Details = x.ErrorData.Details
		}
		return e
	}
	e.Message = fmt.Sprintf("the provider answered HTTP %d", resp.StatusCode)
	if resp.Request != nil && resp.Request.URL != nil {
		// The host only: a path or query may carry a token.
		e.Message = fmt.Sprintf("the provider (%s) answered HTTP %d", resp.Request.URL.Host, resp.StatusCode)
	}
	return e
}

// retryAfter is the wait an answer asks for: a Retry-After header in
// seconds, else the longest estimated_time_to_regain_access (minutes)
// of Meta's X-Business-Use-Case-Usage header.
func retryAfter(h http.Header) time.Duration {
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.Atoi(v); err == nil && s > 0 {
			return time.Duration(s) * time.Second
		}
	}
	var usage map[string][]struct {
		Minutes int `json:"estimated_time_to_regain_access"`
	}
	if json.Unmarshal([]byte(h.Get("X-Business-Use-Case-Usage")), &usage) != nil {
		return 0
	}
	longest := 0
	for _, entries := range usage {
		for _, u := range entries {
			longest = max(longest, u.Minutes)
		}
	}
	return time.Duration(longest) * time.Minute
}
