package graph_test

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Size limits of the house style: a file reads in one sitting, a function
// fits on a screen or two.
const (
	maxGraphFileLines = 300
	maxFileLines      = 400
	maxFuncLines      = 80
)

// TestSizes keeps hand-written code small: outside tests, no file in graph/
// over 300 lines, no file anywhere in the module over 400 and no function
// over 80. Generated files (gqlgen's, oapi-codegen's) are left out.
func TestSizes(t *testing.T) {
	root := filepath.Join("..")
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if ast.IsGenerated(f) {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		limit := maxFileLines
		if strings.HasPrefix(rel, "graph"+string(filepath.Separator)) {
			limit = maxGraphFileLines
		}
		if lines := bytes.Count(src, []byte("\n")); lines > limit {
			t.Errorf("%s has %d lines; split it by concern (at most %d)", rel, lines, limit)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFuncLines {
				t.Errorf("%s: %s has %d lines; at most %d", rel, fn.Name.Name, n, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
