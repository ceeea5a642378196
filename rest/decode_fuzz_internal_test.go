package rest

import (
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"unicode/utf8"

	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// bodyTypes are the request bodies of every route that takes one, as its
// handler decodes them; the empty struct is the body of the routes that take
// none (replay, verify).
var bodyTypes = []func() any{
	func() any { return new(model.SendMessageInput) },
	func() any { return new(model.MarketingMessageInput) },
	func() any { return new(model.CreateContactInput) },
	func() any { return new(model.UpdateContactInput) },
	func() any { return new(model.UpdateConversationInput) },
	func() any { return new(model.CreateWebhookEndpointInput) },
	func() any { return new(model.UpdateWebhookEndpointInput) },
	func() any { return new(model.RollWebhookSecretInput) },
	func() any { return new(model.SimulateInboundInput) },
	func() any { return new(model.UploadFileInput) },
	func() any { return new(visitor.SessionInput) },
	func() any { return new(visitorMessageInput) },
	func() any { return new(visitor.RatingInput) },
	func() any { return new(struct{}) },
}

// FuzzDecode: whatever the bytes, the shared decoder of request bodies
// neither panics nor fails other than with 400 invalid_request, and what it
// accepts is a JSON object in UTF-8.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, kind uint8, body []byte) {
		dst := bodyTypes[int(kind)%len(bodyTypes)]()
		present, err := decodeBytes(body, dst)
		if err != nil {
			e, ok := apierr.As(err)
			if !ok || e.Code != apierr.InvalidRequest {
				t.Fatalf("%T: %v, want invalid_request", dst, err)
			}
			return
		}
		if !utf8.Valid(body) || !json.Valid(body) {
			t.Fatalf("%T: accepted %q, which is not UTF-8 JSON", dst, body)
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal(body, &fields) != nil || len(fields) != len(present) {
			t.Fatalf("%T: %q: present %v, fields %v", dst, body, present, fields)
		}
	})
}

// FuzzQueryParams: list parameters (limit, cursors, filters) parse or are
// refused with a 400 code, never otherwise.
func FuzzQueryParams(f *testing.F) {
	f.Fuzz(func(t *testing.T, rawQuery string) {
		r := &http.Request{URL: &url.URL{Path: "/v1/conversations", RawQuery: rawQuery}}
		q, err := queryParams(r, "channel", "status", "website_id", "updated_since", "limit", "starting_after")
		if err == nil {
			_, err = limitParam(q)
		}
		if err == nil {
			return
		}
		e, ok := apierr.As(err)
		if !ok {
			t.Fatalf("%q: %v is not an API error", rawQuery, err)
		}
		if entry, _ := apierr.Lookup(e.Code); entry.Status != http.StatusBadRequest {
			t.Fatalf("%q: %s answers %d, want 400", rawQuery, e.Code, entry.Status)
		}
	})
}
