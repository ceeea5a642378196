// Package rest keeps the /v1 contract: routing, authentication and key
// restrictions, versions, rate limits, cursors and the {data}/{error}
// envelopes. A handler decodes, makes one resolver call and encodes.
package rest

import (
	"encoding/json"
	"log/slog"
	"net/http"

	"github.com/msgsvc/msgsvc/graph"
)

// statusOf is the one table from error code to HTTP status: every code of the
// spec, plus the service's own for unknown routes and internal failures.
var statusOf = map[string]int{
	"invalid_api_key": 401, "key_revoked": 401, "key_expired": 401, "key_rolled": 401,
	"test_key_required": 403, "step_up_required": 403, "plan_upgrade_required": 403,
	"account_inactive": 403, "ip_not_allowed": 403, "insufficient_scope": 403,
	"channel_not_allowed": 403, "website_not_allowed": 403, "contacts_need_all_websites": 403,
	"invalid_request": 400, "invalid_version": 400, "invalid_limit": 400, "invalid_cursor": 400,
	"invalid_phone": 400, "text_required": 400, "from_required": 400, "subject_required": 400,
	"invalid_email": 400, "whatsapp_account_required": 400, "invalid_attachment": 400,
	"file_not_found": 400, "invalid_idempotency_key": 400, "file_rejected": 400,
	"unsupported_attachment": 400, "file_already_used": 400, "attachments_too_large": 400,
	"endpoint_disabled": 400, "event_expired": 400,
	"conversation_not_found": 404, "message_not_found": 404, "contact_not_found": 404,
	"event_not_found": 404, "endpoint_not_found": 404, "delivery_not_found": 404,
	"integration_paused": 409, "contact_exists": 409, "idempotency_in_progress": 409,
	"window_closed": 422, "no_whatsapp_account": 422, "template_not_approved": 422,
	"template_not_marketing": 422, "conversation_closed": 422, "sender_not_verified": 422,
	"sender_not_found": 422, "recipient_suppressed": 422, "recipient_unsubscribed": 422,
	"private_reply_expired": 422, "private_reply_used": 422, "recipient_opted_out": 422,
	"no_recipient": 422, "agent_not_found": 422, "idempotency_key_reused": 422,
	"rate_limited": 429, "api_quota_exceeded": 429,
	"route_not_found": 404, "method_not_allowed": 405, "internal_error": 500,
	"file_link_invalid": 403, "channel_unavailable": 503,
}

type errorBody struct {
	Error errorObject `json:"error"`
}

type errorObject struct {
	Code      string `json:"code"`
	Message   string `json:"message"`
	RequestID string `json:"request_id"`
}

// writeError answers an error in the envelope. Errors without a known code
// are internal: logged with the request id, answered without internals.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := graph.AsError(err)
	status, known := 0, false
	if ok {
		status, known = statusOf[e.Code]
	}
	id := requestID(r.Context())
	if !known {
		slog.Error("internal error", "request_id", id, "method", r.Method, "path", r.URL.Path, "err", err)
		e, status = &graph.Error{Code: "internal_error", Message: "Something went wrong on our side; quote the request id when you contact us."}, 500
	}
	writeJSON(w, status, errorBody{errorObject{Code: e.Code, Message: e.Message, RequestID: id}})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(body)
}

type dataBody struct {
	Data any `json:"data"`
}
