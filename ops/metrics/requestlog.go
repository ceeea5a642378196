package metrics

import "github.com/prometheus/client_golang/prometheus"

var (
	requestLogRows = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgsvc_request_log_rows_total",
		Help: "Rows of the /v1 request log, by outcome: written, dropped (the buffer was full, the request was not kept waiting) or failed (the batch's INSERT failed).",
	}, []string{"outcome"})
	requestLogWritten = requestLogRows.WithLabelValues("written")
	requestLogDropped = requestLogRows.WithLabelValues("dropped")
	requestLogFailed  = requestLogRows.WithLabelValues("failed")
)

func init() { Registry.MustRegister(requestLogRows) }

// ObserveRequestLogDropped counts a request log row left out because the
// buffer was full.
func ObserveRequestLogDropped() { requestLogDropped.Inc() }

// ObserveRequestLogBatch counts a batch of request log rows written or
// failed.
func ObserveRequestLogBatch(n int, err error) {
	if err != nil {
		requestLogFailed.Add(float64(n))
		return
	}
	requestLogWritten.Add(float64(n))
}
