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
	"github.com/msgsvc/msgsvc/graph/apierr"
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

// rateLimitCodes are Meta's throttling codes: 130429 (a number's
// throughput), 131056 (pair rate: one recipient), 4 (application), 17
// (user), 32 (page), 613 (calls per hour), 80000-80014 (business use case
// limits; 80002 Instagram, 80007 WhatsApp).
func rateLimit(code int) (bool, channels.Hold) {
	switch {
	case code == 131056:
		return true, channels.HoldRecipient
	case code == 130429, code == 4, code == 17, code == 32, code == 613, code >= 80000 && code <= 80014:
		return true, channels.HoldAccount
	}
	return false, channels.HoldNone
}

// Refusal maps the error per the refusal table (docs/whatsapp.md,
// docs/instagram.md); anything the table
// does not name (an unknown code, a 5xx, a timeout, a connection error) is
// channel_unavailable with the provider's code and text as the reason.
func (e *Error) Refusal() *channels.Refusal {
	r := &channels.Refusal{Code: apierr.ChannelUnavailable, Reason: e.Reason()}
	if r.Reason == "" {
		r.Reason = "the provider could not be reached"
	}
	switch e.Code {
	case 131047:
		r.Code = apierr.WindowClosed
	case 10:
		// Instagram: outside the allowed window (2018278; 2534022 in some
		// client maps). Other code 10 answers are permission problems.
		if e.Subcode == 2018278 || e.Subcode == 2534022 {
			r.Code = apierr.WindowClosed
		}
	case 132000:
		r.Code = apierr.InvalidRequest
	case 132001, 132015, 132016:
		r.Code, r.RefreshTemplates = apierr.TemplateNotApproved, true
	case 131050:
		r.Code = apierr.RecipientOptedOut
	case 131026, 551:
		r.Code = apierr.RecipientUnreachable
	case 190:
		r.NeedsReauth = true
	case 0:
		// No envelope: a 401 is a token the provider no longer takes (a
		// media URL answers so when the token expired).
		r.NeedsReauth = e.HTTPStatus == http.StatusUnauthorized
	}
	if limited, hold := rateLimit(e.Code); limited {
		r.Code, r.Hold, r.RetryAfter = apierr.ChannelRateLimited, hold, e.RetryAfter
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
