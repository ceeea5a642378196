// Package metrics holds msgsvc's Prometheus metrics (docs/operations.md): one
// registry, the metric families, and the functions other packages call to
// record what happened. Names follow Prometheus conventions: a msgsvc_
// prefix, _total for counters, base units (_seconds) for durations.
// Labels take bounded values only: a route pattern, never a raw path.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Registry is the registry /metrics serves. Tests read it through Handler.
var Registry = prometheus.NewRegistry()

// Buckets of latencies, in seconds: 5 ms to 30 s.
var latencyBuckets = []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}

// Buckets of webhook lag, in seconds: 50 ms to 3 days (the give-up time).
var lagBuckets = []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 21600, 86400, 259200}

var (
	httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgsvc_http_requests_total",
		Help: "HTTP requests answered, by method, route pattern and status.",
	}, []string{"method", "route", "status"})
	httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "msgsvc_http_request_duration_seconds",
		Help:    "Time to answer an HTTP request, by method, route pattern and status.",
		Buckets: latencyBuckets,
	}, []string{"method", "route", "status"})
	sends = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgsvc_sends_total",
		Help: "Message sends through the API, by channel, mode (live or test) and outcome (sent or the error code).",
	}, []string{"channel", "mode", "outcome"})
	providerCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgsvc_provider_calls_total",
		Help: "Calls to a provider (WhatsApp, Instagram, SMTP relay, AI), by channel and outcome.",
	}, []string{"channel", "outcome"})
	providerDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "msgsvc_provider_call_duration_seconds",
		Help:    "Duration of a provider call, by channel and outcome.",
		Buckets: latencyBuckets,
	}, []string{"channel", "outcome"})
	webhookAttempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgsvc_webhook_deliveries_total",
		Help: "Webhook delivery attempts, by outcome (succeeded, retrying, failed).",
	}, []string{"outcome"})
	webhookLag = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "msgsvc_webhook_delivery_lag_seconds",
		Help:    "Time from an event to its successful delivery to an endpoint.",
		Buckets: lagBuckets,
	})
	jobRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgsvc_jobs_total",
		Help: "Background tasks run, by task type and outcome (succeeded, failed).",
	}, []string{"type", "outcome"})
	rateLimitFallback = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "msgsvc_rate_limit_fallback_total",
		Help: "Rate-limit decisions taken by the in-process fallback limiter because Redis did not answer.",
	})
	jobDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "msgsvc_job_duration_seconds",
		Help:    "Duration of a background task, by task type.",
		Buckets: latencyBuckets,
	}, []string{"type"})
)

func init() {
	Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		httpRequests, httpDuration, sends, providerCalls, providerDuration, webhookAttempts, webhookLag,
		jobRuns, jobDuration, queues, rateLimitFallback)
}

// ObserveRequest records one answered HTTP request. route is the matched
// route pattern (e.g. /v1/conversations/{id}); a method other than the
// standard ones is recorded as "other", so a client cannot add series.
func ObserveRequest(method, route string, status int, d time.Duration) {
	code := strconv.Itoa(status)
	method = methodLabel(method)
	httpRequests.WithLabelValues(method, route, code).Inc()
	httpDuration.WithLabelValues(method, route, code).Observe(d.Seconds())
}

// methodLabel is method if it is one of RFC 9110's methods or PATCH,
// "other" otherwise.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return method
	}
	return "other"
}

// Mode is the mode label of a send: "live" or "test".
func Mode(livemode bool) string {
	if livemode {
		return "live"
	}
	return "test"
}

// ObserveSend records the outcome of one send: "sent", or the API error
// code it was refused with ("window_closed", "channel_unavailable", …).
func ObserveSend(channel string, livemode bool, outcome string) {
	sends.WithLabelValues(channel, Mode(livemode), outcome).Inc()
}

// ObserveProviderCall records one call to a provider and how long it took.
// outcome is "ok", or the error code the provider's answer maps to
// ("recipient_unreachable", "channel_unavailable", …).
func ObserveProviderCall(channel, outcome string, d time.Duration) {
	providerCalls.WithLabelValues(channel, outcome).Inc()
	providerDuration.WithLabelValues(channel, outcome).Observe(d.Seconds())
}

// Webhook attempt outcomes.
const (
	WebhookSucceeded = "succeeded"
	WebhookRetrying  = "retrying"
	WebhookFailed    = "failed"
)

// ObserveWebhookAttempt records one delivery attempt; for a success, lag is
// the time since the event was recorded.
func ObserveWebhookAttempt(outcome string, lag time.Duration) {
	webhookAttempts.WithLabelValues(outcome).Inc()
	if outcome == WebhookSucceeded {
		webhookLag.Observe(max(lag, 0).Seconds())
	}
}

// ObserveJob records one background task run.
func ObserveJob(taskType string, err error, d time.Duration) {
	outcome := "succeeded"
	if err != nil {
		outcome = "failed"
	}
	jobRuns.WithLabelValues(taskType, outcome).Inc()
	jobDuration.WithLabelValues(taskType).Observe(d.Seconds())
}

// ObserveRateLimitFallback records one rate-limit decision taken in the
// process because Redis did not answer.
func ObserveRateLimitFallback() { rateLimitFallback.Inc() }
