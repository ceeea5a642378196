package metrics_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/ops/metrics"
	"github.com/msgsvc/msgsvc/ops/metrics/metricstest"
)

// The method label takes the standard methods as they are and anything
// else as "other": made-up methods add one series, not one each.
func TestRequestMethodLabelIsBounded(t *testing.T) {
	const route = "/test/method-label"
	standard := []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace}
	for _, m := range append(slices.Clone(standard), "XMETH1", "XMETH2", "get", "PROPFIND", "") {
		metrics.ObserveRequest(m, route, 405, time.Millisecond)
	}
	fams := metricstest.Scrape(t)
	var methods []string
	for _, name := range []string{"msgsvc_http_requests_total", "msgsvc_http_request_duration_seconds"} {
		methods = methods[:0]
		for _, m := range fams[name].GetMetric() {
			var seen, method string
			for _, l := range m.GetLabel() {
				switch l.GetName() {
				case "route":
					seen = l.GetValue()
				case "method":
					method = l.GetValue()
				}
			}
			if seen == route {
				methods = append(methods, method)
			}
		}
		slices.Sort(methods)
		want := append(slices.Clone(standard), "other")
		slices.Sort(want)
		if !slices.Equal(methods, want) {
			t.Errorf("%s: methods %q, want %q", name, methods, want)
		}
	}
	if got := fams.Value("msgsvc_http_requests_total", map[string]string{"route": route, "method": "other"}); got != 5 {
		t.Errorf("other: %v requests, want 5", got)
	}
}
