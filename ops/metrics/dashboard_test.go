package metrics_test

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/msgsvc/msgsvc/ops/metrics"
	"github.com/msgsvc/msgsvc/ops/metrics/metricstest"
)

// dashboardPath is the Grafana dashboard shipped for operators.
const dashboardPath = "../../docs/grafana-dashboard.json"

// TestDashboardNamesOnlyExportedMetrics parses every PromQL expression of
// docs/grafana-dashboard.json and checks each metric it names against a
// scrape of the registry, so a renamed metric cannot leave the dashboard
// showing nothing. Every msgsvc_ family must also have a panel.
func TestDashboardNamesOnlyExportedMetrics(t *testing.T) {
	fams := exportEveryFamily(t)
	exprs := dashboardExpressions(t)
	if len(exprs) == 0 {
		t.Fatal("the dashboard has no PromQL expressions")
	}
	used := map[string]bool{}
	for _, expr := range exprs {
		names := promqlMetricNames(expr)
		if len(names) == 0 {
			t.Errorf("no metric found in %q", expr)
		}
		for _, name := range names {
			family, ok := familyOf(fams, name)
			if !ok {
				t.Errorf("the dashboard queries %s, which /metrics does not export (in %q)", name, expr)
				continue
			}
			used[family] = true
		}
	}
	for name := range fams {
		if strings.HasPrefix(name, "msgsvc_") && !used[name] {
			t.Errorf("no dashboard panel shows %s", name)
		}
	}
}

// familyOf maps a series name to the family that exports it: itself, or a
// histogram's _bucket, _sum and _count series.
func familyOf(fams metricstest.Families, name string) (string, bool) {
	if _, ok := fams[name]; ok {
		return name, true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		base, ok := strings.CutSuffix(name, suffix)
		if !ok {
			continue
		}
		if typ := fams.Type(base); typ == "HISTOGRAM" || (typ == "SUMMARY" && suffix != "_bucket") {
			return base, true
		}
	}
	return "", false
}

// exportEveryFamily records one sample of each metric, so that vectors with
// no children yet appear in the scrape, and scrapes the registry.
func exportEveryFamily(t *testing.T) metricstest.Families {
	t.Helper()
	metrics.ObserveRequest("GET", "/v1/channels", 200, time.Millisecond)
	metrics.ObserveSend("whatsapp", false, "sent")
	metrics.ObserveProviderCall("whatsapp", "ok", time.Millisecond)
	metrics.ObserveWebhookAttempt(metrics.WebhookSucceeded, time.Second)
	metrics.ObserveJob("webhook:deliver", nil, time.Millisecond)
	metrics.ObserveProviderHookFailed("meta", "provider", true)
	metrics.ObserveTemplateSync("ok")
	metrics.SetQueueInspector(oneQueue{})
	t.Cleanup(func() { metrics.SetQueueInspector(nil) })
	return metricstest.Scrape(t)
}

// oneQueue is an asynq queue reader with one empty queue.
type oneQueue struct{}

func (oneQueue) Queues() ([]string, error) { return []string{"default"}, nil }
func (oneQueue) GetQueueInfo(q string) (*asynq.QueueInfo, error) {
	return &asynq.QueueInfo{Queue: q, Pending: 1}, nil
}

// dashboardExpressions returns the expr of every panel target (rows
// included) and the metric of every label_values() variable query.
func dashboardExpressions(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels     []panel `json:"panels"`
		Templating struct {
			List []struct {
				Type  string `json:"type"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("%s: %v", dashboardPath, err)
	}
	var out []string
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			for _, target := range p.Targets {
				out = append(out, target.Expr)
			}
			walk(p.Panels)
		}
	}
	walk(dash.Panels)
	labelValues := regexp.MustCompile(`^label_values\(\s*(.+),\s*[a-zA-Z_]+\s*\)$`)
	for _, v := range dash.Templating.List {
		if v.Type != "query" {
			continue
		}
		q, _ := v.Query.(string)
		if m, ok := v.Query.(map[string]any); ok {
			q, _ = m["query"].(string)
		}
		sub := labelValues.FindStringSubmatch(strings.TrimSpace(q))
		if sub == nil {
			t.Errorf("variable query %q is not label_values(metric, label)", q)
			continue
		}
		out = append(out, sub[1])
	}
	return out
}

type panel struct {
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
	Panels []panel `json:"panels"`
}

// promqlKeywords are the identifiers of PromQL that are not metric names
// when no parenthesis follows them: operators, modifiers and the
// aggregations, which may take "by (…)" before their parenthesis.
var promqlKeywords = map[string]bool{"and": true, "or": true, "unless": true, "bool": true, "offset": true,
	"group_left": true, "group_right": true, "on": true, "ignoring": true, "by": true, "without": true,
	"sum": true, "min": true, "max": true, "avg": true, "group": true, "stddev": true, "stdvar": true,
	"count": true, "count_values": true, "bottomk": true, "topk": true, "quantile": true,
	"limitk": true, "limit_ratio": true}

// labelListKeywords are followed by a parenthesized list of label names.
var labelListKeywords = map[string]bool{"by": true, "without": true, "on": true, "ignoring": true,
	"group_left": true, "group_right": true}

// promqlMetricNames lists the metric names a PromQL expression selects:
// the identifiers outside label matchers, ranges, strings and label lists
// that are neither a function call nor a keyword. Grafana's $variables
// sit in strings or ranges, so they are skipped with them.
func promqlMetricNames(expr string) []string {
	var names []string
	skipTo := func(i int, closer byte) int {
		for i < len(expr) && expr[i] != closer {
			if q := expr[i]; q == '"' || q == '\'' || q == '`' {
				i = skipString(expr, i)
				continue
			}
			i++
		}
		return i + 1
	}
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skipString(expr, i)
		case c == '{':
			i = skipTo(i+1, '}')
		case c == '[':
			i = skipTo(i+1, ']')
		case isIdentStart(c):
			j := i
			for j < len(expr) && isIdentPart(expr[j]) {
				j++
			}
			word := expr[i:j]
			k := j
			for k < len(expr) && expr[k] == ' ' {
				k++
			}
			call := k < len(expr) && expr[k] == '('
			switch {
			case labelListKeywords[strings.ToLower(word)] && call:
				j = skipTo(k+1, ')')
			case promqlKeywords[strings.ToLower(word)] || call:
			default:
				if !slices.Contains(names, word) {
					names = append(names, word)
				}
			}
			i = j
		case c >= '0' && c <= '9':
			for i < len(expr) && (isIdentPart(expr[i]) || expr[i] == '.') {
				i++ // a number or a duration such as 5m
			}
		default:
			i++
		}
	}
	sort.Strings(names)
	return names
}

func skipString(s string, i int) int {
	q := s[i]
	for i++; i < len(s); i++ {
		if s[i] == '\\' && q != '`' {
			i++
			continue
		}
		if s[i] == q {
			return i + 1
		}
	}
	return i
}

func isIdentStart(c byte) bool {
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

func TestPromQLMetricNames(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string
	}{
		{`sum by (route, status) (rate(msgsvc_http_requests_total{job=~"$job", status=~"5.."}[$__rate_interval]))`,
			[]string{"msgsvc_http_requests_total"}},
		{`histogram_quantile(0.95, sum by (le) (rate(a_bucket{x="by (y)"}[5m])))`, []string{"a_bucket"}},
		{`sum(rate(a_sum[1m])) / on (job) group_left (instance) sum(rate(a_count[1m])) > bool 0`, []string{"a_count", "a_sum"}},
		{`up offset 5m or absent(missing_metric)`, []string{"missing_metric", "up"}},
		{`max without (le) (x:recorded:rate5m)`, []string{"x:recorded:rate5m"}},
	} {
		if got := promqlMetricNames(tc.expr); !slices.Equal(got, tc.want) {
			t.Errorf("promqlMetricNames(%q) = %v, want %v", tc.expr, got, tc.want)
		}
	}
}
