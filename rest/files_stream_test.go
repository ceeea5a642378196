package rest_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"

	"github.com/msgsvc/msgsvc/graph/files"
	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

// peakWriter records, at each write, the live heap after a collection:
// what the handler holds while it sends.
type peakWriter struct {
	*httptest.ResponseRecorder
	peak uint64
	body int
}

func (w *peakWriter) Write(p []byte) (int, error) {
	var m runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m)
	w.peak = max(w.peak, m.HeapAlloc)
	w.body += len(p) // p (and what it is part of) is live until here
	runtime.KeepAlive(p)
	return len(p), nil
}

// TestFileDownloadStreams: a download through a signed link holds a small
// part of the file in memory at a time, not the whole file.
func TestFileDownloadStreams(t *testing.T) {
	api := resttest.New(t)
	const size = 8 << 20
	link := uploadLarge(t, api, size) // in a frame of its own: its copies are garbage here
	h := api.Server.Handler()
	req := httptest.NewRequest(http.MethodGet, link, nil)
	w := &peakWriter{ResponseRecorder: httptest.NewRecorder()}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	h.ServeHTTP(w, req)
	if w.Code != 200 || w.body != size {
		t.Fatalf("download: %d, %d bytes of %d: %s", w.Code, w.body, size, w.ResponseRecorder.Body)
	}
	if held := int64(w.peak) - int64(before.HeapAlloc); held > size/4 {
		t.Fatalf("the download held %d bytes while sending a file of %d", held, size)
	}
}

// uploadLarge uploads a file of size bytes and returns its signed link.
func uploadLarge(t *testing.T, api *resttest.API, size int) string {
	content := bytes.Repeat([]byte("%PDF-1.7 streamed download test\n"), size/32)
	f := api.Want(upload(t, api, "test_all", "report.pdf", "application/pdf", content), 201, "").Data()
	return (&files.Service{Clock: api.Clock.Now, Secrets: signing.Secrets{api.Config.Secret}}).URL(f["id"].(string))
}
