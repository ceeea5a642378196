package repotest

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// makeRules reads the Makefile's rules: each target's prerequisites and
// recipe lines.
func makeRules(t *testing.T, path string) map[string]struct{ deps, recipe []string } {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rules := map[string]struct{ deps, recipe []string }{}
	rule := regexp.MustCompile(`^([A-Za-z0-9_-]+):([^=].*)?$`)
	current := ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch m := rule.FindStringSubmatch(line); {
		case m != nil:
			current = m[1]
			r := rules[current]
			r.deps = append(r.deps, strings.Fields(m[2])...)
			rules[current] = r
		case strings.HasPrefix(line, "\t") && current != "":
			r := rules[current]
			r.recipe = append(r.recipe, line)
			rules[current] = r
		default:
			current = ""
		}
	}
	return rules
}

// TestMakeTestChangesNothing: make test, its prerequisites and the .ci
// scripts they run install no package, use no sudo and edit no server
// configuration; that is .ci/services', which only make run and .ci/run
// call.
func TestMakeTestChangesNothing(t *testing.T) {
	root := filepath.Join("..", "..")
	rules := makeRules(t, filepath.Join(root, "Makefile"))
	forbidden := regexp.MustCompile(`\b(sudo|apt-get|pg_hba|pg_createcluster|pg_ctlcluster)\b`)
	script := regexp.MustCompile(`\.ci/[A-Za-z0-9_-]+`)
	seen := map[string]bool{}
	var visit func(target, from string)
	check := func(where, text string) {
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			if m := forbidden.FindString(line); m != "" {
				t.Errorf("%s runs %q: make test must not change the machine (%s)", where, m, strings.TrimSpace(line))
			}
		}
	}
	visit = func(target, from string) {
		if seen[target] {
			return
		}
		seen[target] = true
		r, ok := rules[target]
		if !ok {
			t.Fatalf("make target %q (of %s) not found", target, from)
		}
		for _, line := range r.recipe {
			check("make "+target, line)
			for _, s := range script.FindAllString(line, -1) {
				body, err := os.ReadFile(filepath.Join(root, s))
				if err != nil {
					t.Fatalf("make %s: %v", target, err)
				}
				check(s+" (make "+target+")", string(body))
			}
		}
		for _, d := range r.deps {
			visit(d, target)
		}
	}
	visit("test", "the command line")
}
