package rest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
)

// zeros is an endless body that allocates nothing.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// allocated is how many bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestOversizeMetaHookBoundedAllocation: a /hooks/meta body ten times the
// limit is refused 413 having allocated next to nothing when its length
// is declared, and no more than the limit when it is not (chunked).
func TestOversizeMetaHookBoundedAllocation(t *testing.T) {
	s := &Server{Meta: MetaHooks{AppSecret: "meta-app-secret"}}
	for _, tc := range []struct {
		name     string
		declared int64
		bound    uint64
	}{
		{"declared length", 10 * maxMetaHook, 64 << 10},
		{"chunked", -1, maxMetaHook + 128<<10},
	} {
		var code int
		n := allocated(func() {
			r := httptest.NewRequest(http.MethodPost, "/hooks/meta", io.LimitReader(zeros{}, 10*maxMetaHook))
			r.ContentLength = tc.declared
			w := httptest.NewRecorder()
			s.metaHook(w, r)
			code = w.Code
		})
		if code != http.StatusRequestEntityTooLarge || n > tc.bound {
			t.Errorf("%s: %d after allocating %d bytes; want 413 within %d", tc.name, code, n, tc.bound)
		}
	}
}

// TestReadBounded: what fits is read whole, declared or not.
func TestReadBounded(t *testing.T) {
	for _, declared := range []int64{100_000, -1} {
		got, err := readBounded(io.LimitReader(zeros{}, 100_000), declared, 100_000)
		if err != nil || len(got) != 100_000 {
			t.Errorf("declared %d: %d bytes, %v", declared, len(got), err)
		}
	}
	if _, err := readBounded(io.LimitReader(zeros{}, 100_001), -1, 100_000); err != errTooLarge {
		t.Errorf("one byte over: %v", err)
	}
}
