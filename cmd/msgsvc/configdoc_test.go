package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// envName is what an environment variable's name looks like; envSuffix a
// suffix the code appends to names (as in NAME + "_FILE").
var (
	envName   = regexp.MustCompile(`^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$`)
	envSuffix = regexp.MustCompile(`^_[A-Z][A-Z0-9_]*$`)
)

// configNames lists the environment variable names written as string
// literals in the non-test Go files of dirs (every getenv, get, boolSetting
// and table of variables names its variable as such a literal), and as
// "*_SUFFIX" each suffix appended to names.
func configNames(t *testing.T, dirs ...string) []string {
	t.Helper()
	var names []string
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				switch {
				case err != nil:
				case envSuffix.MatchString(s):
					s = "*" + s // a suffix: listed as *_FILE
				case !envName.MatchString(s):
					return true
				}
				if err == nil && !slices.Contains(names, s) {
					names = append(names, s)
				}
				return true
			})
		}
	}
	slices.Sort(names)
	return names
}

// TestEveryVariableIsDocumented: each environment variable the binary (or
// the test helpers) reads has its row in docs/configuration.md, and the
// document names no variable the code does not read.
func TestEveryVariableIsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	names := configNames(t, ".", "../../repo/repotest", "../../rest/resttest")
	if len(names) < 30 || !slices.Contains(names, "MSGSVC_SECRET") || !slices.Contains(names, "TEST_REDIS_URL") {
		t.Fatalf("the scan found %d names (%v): it no longer reads the configuration code", len(names), names)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(string(doc), "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		first := strings.Split(line, "|")[1] // the variable column, maybe several names
		for _, m := range regexp.MustCompile("`([A-Z][A-Z0-9_]+)`").FindAllStringSubmatch(first, -1) {
			rows[m[1]] = true
		}
	}
	for _, name := range names {
		if suffix, ok := strings.CutPrefix(name, "*"); ok {
			if !strings.Contains(string(doc), suffix) {
				t.Errorf("the code reads variables named NAME%s but docs/configuration.md does not say so", suffix)
			}
			continue
		}
		if !rows[name] {
			t.Errorf("%s is read by the code but has no row in docs/configuration.md", name)
		}
	}
	for name := range rows {
		// The scale-out run's variables are read by its test file.
		if !slices.Contains(names, name) && !strings.HasPrefix(name, "MSGSVC_SCALEOUT") {
			t.Errorf("docs/configuration.md documents %s, which no code reads", name)
		}
	}
}
