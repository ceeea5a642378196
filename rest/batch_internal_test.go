package rest

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Prefer is a list of preferences (RFC 7240); respond-async is one of
// them in any case, with or without parameters.
func TestPreferAsync(t *testing.T) {
	for header, want := range map[string]bool{"respond-async": true, "Respond-Async": true, "wait=10, respond-async": true,
		"respond-async; foo=bar": true, "return=minimal": false, "": false, "respond-asynchronously": false} {
		r := httptest.NewRequest("POST", "/v1/messages", nil)
		if header != "" {
			r.Header.Set("Prefer", header)
		}
		if got := preferAsync(r); got != want {
			t.Errorf("Prefer %q: async %v, want %v", header, got, want)
		}
	}
}

// A batch item's error is the status and error object writeError answers
// the same error with alone.
func TestItemErrorAnswersAsWriteError(t *testing.T) {
	for _, err := range []error{
		apierr.New(apierr.InvalidRequest, "messages[3] must be a JSON object."),
		apierr.New(apierr.ConversationNotFound, "No conversation conv_x."),
		errors.New("boom"),
	} {
		r := httptest.NewRequest("POST", "/v1/messages/batch", nil)
		w := httptest.NewRecorder()
		writeError(w, r, err)
		var alone errorBody
		if jerr := json.Unmarshal(w.Body.Bytes(), &alone); jerr != nil {
			t.Fatal(jerr)
		}
		got := itemError(r, err)
		if got.Status != w.Code || got.Error == nil || *got.Error != alone.Error || got.Message != nil {
			t.Errorf("%v: item %d %+v, alone %d %+v", err, got.Status, got.Error, w.Code, alone.Error)
		}
	}
}
