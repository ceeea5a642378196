package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// MaxWidgetBody is the largest visitor API body. The longest field, a
// 4096-character message or comment, takes at most 48 KB of JSON (each
// character escaped as a surrogate pair, 12 bytes); the visitor API is
// anonymous, so nothing larger is read.
const MaxWidgetBody = 64 << 10

func widgetBodyTooLarge() error {
	return apierr.New(apierr.InvalidRequest, "The request body is larger than %d KB.", MaxWidgetBody>>10)
}

// limitWidgetBody refuses a visitor request whose Content-Length passes
// MaxWidgetBody before reading any of it (closing the connection rather
// than draining it), and caps the body of the others: a body without a
// length is refused once MaxWidgetBody is passed.
func limitWidgetBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > MaxWidgetBody {
			w.Header().Set("Connection", "close")
			writeWidgetError(w, r, widgetBodyTooLarge())
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxWidgetBody)
		next.ServeHTTP(w, r)
	})
}

// decodeWidget reads a visitor API body (at most MaxWidgetBody bytes) into
// dst, a struct of strings and numbers, with the refusals of decode: not a
// JSON object, not UTF-8, an unknown field, a wrong type, a NUL in a
// string. The body is decoded into dst only, never into a generic value,
// so a refusal costs no more than the bytes read.
func decodeWidget(r *http.Request, dst any) error {
	// A body that gives its length is read into one buffer of that size.
	var buf bytes.Buffer
	buf.Grow(int(min(max(r.ContentLength, 0), MaxWidgetBody)) + bytes.MinRead)
	_, err := buf.ReadFrom(io.LimitReader(r.Body, MaxWidgetBody+1))
	body := buf.Bytes()
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) || len(body) > MaxWidgetBody {
		return widgetBodyTooLarge()
	}
	if err != nil {
		return apierr.New(apierr.InvalidRequest, "The request body could not be read.")
	}
	trimmed := bytes.TrimSpace(body)
	switch {
	case len(trimmed) == 0:
		return apierr.New(apierr.InvalidRequest, "The request needs a JSON object body.")
	case trimmed[0] != '{':
		return apierr.New(apierr.InvalidRequest, "The request body must be a JSON object.")
	case !utf8.Valid(body):
		return apierr.New(apierr.InvalidRequest, "The request body is not valid UTF-8.")
	}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return apierr.New(apierr.InvalidRequest, "%s", describeJSONError(err))
	}
	if dec.InputOffset() != int64(len(trimmed)) {
		return apierr.New(apierr.InvalidRequest, "The request body must be one JSON object.")
	}
	if name := nulField(dst); name != "" {
		return apierr.New(apierr.InvalidRequest, "%s holds a NUL character (\\u0000), which text may not contain.", name)
	}
	return nil
}

// nulField names the first string field of the struct *dst (a string or a
// *string) holding a NUL, by its JSON name; "" when none does.
func nulField(dst any) string {
	v := reflect.ValueOf(dst).Elem()
	for i := range v.NumField() {
		f := v.Field(i)
		if f.Kind() == reflect.Pointer && !f.IsNil() {
			f = f.Elem()
		}
		if f.Kind() == reflect.String && strings.ContainsRune(f.String(), 0) {
			name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
			return name
		}
	}
	return ""
}
