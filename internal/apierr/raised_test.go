package apierr_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// TestEveryCodeIsRaised fails when the table holds a code that no Go source
// outside this package raises (names as apierr.<Const>) and that docs/api.md
// does not document as reserved: a dead code is a contract promise nobody
// keeps. The opposite mistake, raising a code the table lacks, cannot be
// written: codes are typed constants, so it is a compile error.
func TestEveryCodeIsRaised(t *testing.T) {
	root := filepath.Join("..", "..")
	names := constNames(t, "apierr.go")
	raised := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "apierr" || d.Name() == "generated" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "apierr" {
					raised[sel.Sel.Name] = true
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs", "api.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, code := range apierr.Codes() {
		t.Run(string(code), func(t *testing.T) {
			name, ok := names[code]
			if !ok {
				t.Fatalf("no constant in apierr.go has the value %q", code)
			}
			if !raised[name] && !strings.Contains(string(doc), "`"+string(code)+"`") {
				t.Errorf("apierr.%s (%s) is in the table, but no source raises it and docs/api.md does not document it", name, code)
			}
		})
	}
}

// constNames maps each Code constant's value to its name.
func constNames(t *testing.T, file string) map[apierr.Code]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	out := map[apierr.Code]string{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, id := range vs.Names {
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					out[apierr.Code(strings.Trim(lit.Value, `"`))] = id.Name
				}
			}
		}
	}
	return out
}
