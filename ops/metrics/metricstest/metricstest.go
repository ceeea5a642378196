// Package metricstest scrapes msgsvc's /metrics the way Prometheus does
// and reads samples out of it, for tests of any package.
package metricstest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/msgsvc/msgsvc/ops/metrics"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Families are the metric families of one scrape, by name.
type Families map[string]*dto.MetricFamily

// Scrape GETs /metrics from metrics.Handler and parses the text format.
func Scrape(t testing.TB) Families {
	t.Helper()
	srv := httptest.NewServer(metrics.Handler(nil))
	defer srv.Close()
	return ScrapeURL(t, srv.URL+"/metrics")
}

// ScrapeURL GETs a /metrics URL and parses the text format.
func ScrapeURL(t testing.TB, url string) Families {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, body)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse %s: %v", url, err)
	}
	return fams
}

// find returns the metric of a family whose labels include every given
// pair, or nil.
func (f Families) find(name string, labels map[string]string) []*dto.Metric {
	fam := f[name]
	if fam == nil {
		return nil
	}
	var out []*dto.Metric
	for _, m := range fam.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range labels {
			if have[k] != v {
				match = false
			}
		}
		if match {
			out = append(out, m)
		}
	}
	return out
}

// Value sums counters and gauges, or histogram sample counts, of the
// family's metrics whose labels include the given ones.
func (f Families) Value(name string, labels map[string]string) float64 {
	var sum float64
	for _, m := range f.find(name, labels) {
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

// Type is a family's type ("COUNTER", "HISTOGRAM", …), or "" if absent.
func (f Families) Type(name string) string {
	if fam := f[name]; fam != nil {
		return fam.GetType().String()
	}
	return ""
}

// LabelValues lists the values one label takes across a family.
func (f Families) LabelValues(name, label string) []string {
	var out []string
	for _, m := range f.find(name, nil) {
		for _, l := range m.Label {
			if l.GetName() == label {
				out = append(out, l.GetValue())
			}
		}
	}
	return out
}
