package metrics

import (
	"net/http"
	"net/http/pprof"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Handler serves the metrics listener (MSGSVC_METRICS_ADDR): /metrics,
// Go's profiler under /debug/pprof/, and, when given, the probes /healthz
// and /readyz (so a worker-only process has them too). It is on its own
// listener so that none of it is public by accident.
func Handler(probes http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(Registry, promhttp.HandlerOpts{Registry: Registry}))
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	if probes != nil {
		mux.Handle("GET /healthz", probes)
		mux.Handle("GET /readyz", probes)
	}
	return mux
}
