package graph_test

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/msgsvc/msgsvc/"

// layer is one rule of the import graph: the packages it covers may not
// depend, directly or through others, on the packages it forbids (only
// import them directly, when direct is set).
type layer struct {
	name    string
	covers  func(pkg string) bool
	forbids func(dep string) bool
	why     string
	direct  bool
}

func under(prefixes ...string) func(string) bool {
	return func(p string) bool {
		for _, pre := range prefixes {
			if p == pre || strings.HasPrefix(p, pre+"/") {
				return true
			}
		}
		return false
	}
}

// domain is a package under graph/ other than the resolvers' own (graph),
// the generated code and the model.
func domain(p string) bool {
	return strings.HasPrefix(p, "graph/") && !under("graph/generated", "graph/model")(p)
}

// adapter is one provider's adapter (not the shared channels package).
func adapter(p string) bool { return strings.HasPrefix(p, "channels/") }

// providerDomain are the domain packages that speak for one provider and so
// may use its adapter's types.
var providerDomain = under("graph/metahook", "graph/instagram", "graph/mail", "graph/credentials")

var leaf = under("internal", "webhooksig", "graph/model", "graph/generated", "ops/sse", "ops/logging", "ops/redisconn", "ops/gctune")

// harness is a package only tests import (repotest, resttest, …): it may
// stand above what it harnesses, and no product package depends on it.
func harness(p string) bool { return strings.HasSuffix(p, "test") }

var layers = []layer{
	{"leaf", leaf, func(d string) bool { return !leaf(d) },
		"leaf packages (internal/…, the model, logging) import no other package of the module", false},
	{"repo", under("repo"), func(d string) bool { return !leaf(d) && !under("repo")(d) },
		"repo is SQL only: it imports leaf packages and nothing above it", false},
	{"channels", under("channels"), func(d string) bool { return !leaf(d) && !under("channels", "ops/metrics")(d) },
		"an adapter speaks its provider's protocol: it depends on channels and leaf packages, never on graph, rest, jobs, repo or the widget", false},
	{"widget", under("widget"), func(d string) bool { return under("graph", "rest", "jobs", "cmd")(d) && !leaf(d) },
		"the widget depends on small interfaces of its own (wired in cmd/msgsvc), not on domain packages, rest or jobs", false},
	{"domain", domain, func(d string) bool {
		return under("graph", "rest", "jobs", "cmd", "widget")(d) && !domain(d) && !leaf(d)
	},
		"domain packages (graph/<domain>) sit below the resolvers: they never import graph, rest, jobs, cmd or the widget", false},
	{"domain/adapters", func(p string) bool { return domain(p) && !providerDomain(p) }, adapter,
		"provider limits reach domain code through the adapter interface (package channels); only a provider's own domain package (metahook, instagram, mail, credentials) imports its adapter (other domain packages may call those, so the rule is on direct imports)", true},
	{"jobs", under("jobs"), func(d string) bool { return under("graph", "rest", "cmd", "widget")(d) && !leaf(d) },
		"jobs depend on interfaces of their own, never on the resolvers, domain packages or rest", false},
	{"graph", under("graph"), func(d string) bool { return under("rest", "jobs", "cmd", "widget")(d) },
		"graph never imports rest, jobs, cmd or the widget: they call it", false},
	{"rest", under("rest"), func(d string) bool { return under("cmd", "jobs")(d) },
		"rest maps HTTP onto resolver calls; it never imports cmd or jobs", false},
}

// TestImportsPointOneWay: cmd → rest/jobs/widget → graph (resolvers) →
// domain packages → repo, channels, leaf packages. A forbidden dependency of
// a package's own code, direct or through another package, fails with its
// rule; test files are not listed, so a test may reach up to a harness.
func TestImportsPointOneWay(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-json=ImportPath,Imports,Deps", "../...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	seen := map[string]bool{}
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
			Deps       []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		name, _, _ := strings.Cut(p.ImportPath, " ")
		if !strings.HasPrefix(name, module) || strings.HasSuffix(name, ".test") {
			continue
		}
		pkg := strings.TrimSuffix(strings.TrimPrefix(name, module), "_test")
		direct := map[string]bool{}
		for _, d := range p.Imports {
			direct[strings.TrimPrefix(d, module)] = true
		}
		for _, d := range p.Deps {
			d, _, _ = strings.Cut(d, " ")
			if !strings.HasPrefix(d, module) {
				continue
			}
			dep := strings.TrimPrefix(d, module)
			if dep == pkg {
				continue
			}
			if harness(dep) && !harness(pkg) {
				t.Errorf("%s depends on %s: a product package never depends on a test harness", pkg, dep)
				continue
			}
			if harness(pkg) {
				continue
			}
			for _, l := range layers {
				key := l.name + " " + pkg + " " + dep
				if l.covers(pkg) && l.forbids(dep) && (!l.direct || direct[dep]) && !seen[key] {
					seen[key] = true
					t.Errorf("%s depends on %s: %s", pkg, dep, l.why)
				}
			}
		}
	}
}
