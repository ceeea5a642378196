package rest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// countingReader counts the bytes read from it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// decodeThroughLimit runs decodeWidget behind limitWidgetBody on a body
// of the given length (-1: unknown) and returns the error code (or "") and
// the bytes read from the body.
func decodeThroughLimit(t *testing.T, body []byte, length int64) (string, int) {
	t.Helper()
	src := &countingReader{r: bytes.NewReader(body)}
	r := httptest.NewRequest("POST", "/widget/v1/messages", io.NopCloser(src))
	r.ContentLength = length
	w := httptest.NewRecorder()
	code := ""
	limitWidgetBody(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in visitorMessageInput
		if err := decodeWidget(r, &in); err != nil {
			writeWidgetError(w, r, err)
		}
	})).ServeHTTP(w, r)
	var out struct{ Error *struct{ Code string } }
	_ = json.Unmarshal(w.Body.Bytes(), &out)
	if out.Error != nil {
		code = out.Error.Code
	}
	return code, src.n
}

// A body over MaxWidgetBody is refused having read no more than the limit
// (none of it when its Content-Length says so); one at the limit is read.
func TestWidgetBodyRefusedAtTheLimit(t *testing.T) {
	over := []byte(`{"text":"` + strings.Repeat("a", 4<<20) + `"}`)
	if code, read := decodeThroughLimit(t, over, int64(len(over))); code != "invalid_request" || read != 0 {
		t.Errorf("with its length: %q after reading %d bytes", code, read)
	}
	if code, read := decodeThroughLimit(t, over, -1); code != "invalid_request" || read > MaxWidgetBody+1 {
		t.Errorf("without a length: %q after reading %d bytes", code, read)
	}
	// The longest message, every character escaped as a surrogate pair, fits.
	longest := []byte(`{"text":"` + strings.Repeat(`\ud83d\ude00`, visitor.MaxText) + `"}`)
	if code, read := decodeThroughLimit(t, longest, -1); code != "" || read != len(longest) {
		t.Errorf("the longest message (%d bytes): %q after reading %d", len(longest), code, read)
	}
}

// The refusals of decode, without a generic decode.
func TestDecodeWidgetRefusals(t *testing.T) {
	for body, want := range map[string]string{
		``:                       "needs a JSON object body",
		`[1]`:                    "must be a JSON object",
		`null`:                   "must be a JSON object",
		`{"text":"a"} {}`:        "must be one JSON object",
		`{"text":"a","x":1}`:     `Unknown field "x"`,
		`{"text":1}`:             "text must be a string, not number",
		`{"text":"a\u0000b"}`:    "text holds a NUL",
		"{\"text\":\"\xff\"}":    "not valid UTF-8",
		`{"text":`:               "not valid JSON",
		`{"text":[[[[[[[[[[[]]]`: "not valid JSON",
	} {
		r := httptest.NewRequest("POST", "/", strings.NewReader(body))
		var in visitorMessageInput
		err := decodeWidget(r, &in)
		if e, ok := apierr.As(err); !ok || e.Code != apierr.InvalidRequest || !strings.Contains(e.Message, want) {
			t.Errorf("%q: %v, want invalid_request saying %q", body, err, want)
		}
	}
	var in visitorMessageInput
	if err := decodeWidget(httptest.NewRequest("POST", "/", strings.NewReader(" {\"text\":\"hi\"}\n")), &in); err != nil || *in.Text != "hi" {
		t.Errorf("a good body: %v %v", err, in.Text)
	}
}

// A refused body costs a bounded number of bytes, not a multiple of the
// body: no generic decode of what is refused.
func TestDecodeWidgetAllocations(t *testing.T) {
	body := []byte(`{"text":"a","x":[` + strings.Repeat(`[],`, 20000) + `[]]}`)
	perCall := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			var in visitorMessageInput
			_ = decodeWidget(httptest.NewRequest("POST", "/", bytes.NewReader(body)), &in)
		}
	}).AllocedBytesPerOp()
	// About 3.3 times the body (the buffer, the decoder's copy), a little
	// more under the race detector; a generic decode costs about 40 times.
	if perCall > 8*int64(len(body)) {
		t.Errorf("refusing a %d-byte body allocates %d bytes", len(body), perCall)
	}
}
