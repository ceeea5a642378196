package metrics

import "github.com/prometheus/client_golang/prometheus"

var (
	providerHooksGivenUp = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgsvc_provider_hooks_given_up_total",
		Help: "Provider webhooks (Meta) and inbound mails (email) given up after too many failed processing attempts, by source and reason class (credentials, provider, database, processing).",
	}, []string{"source", "reason"})
	providerHookFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgsvc_provider_hook_failures_total",
		Help: "Failed processing attempts of provider webhooks (Meta) and inbound mails (email), by source and reason class; a status waiting for its send is not counted.",
	}, []string{"source", "reason"})
	templateSyncs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "msgsvc_template_syncs_total",
		Help: "WhatsApp template syncs of one number, by outcome (ok, or the error code the failure maps to: channel_unavailable, …).",
	}, []string{"outcome"})
)

func init() {
	Registry.MustRegister(providerHooksGivenUp, providerHookFailures, templateSyncs)
}

// ObserveProviderHookFailed records a failed processing attempt of a
// provider webhook or an inbound mail, and whether it was given up with it.
func ObserveProviderHookFailed(source, reason string, givenUp bool) {
	providerHookFailures.WithLabelValues(source, reason).Inc()
	if givenUp {
		providerHooksGivenUp.WithLabelValues(source, reason).Inc()
	}
}

// ObserveTemplateSync records one number's template sync: "ok" or the
// error code its failure maps to.
func ObserveTemplateSync(outcome string) { templateSyncs.WithLabelValues(outcome).Inc() }
