package email

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// boundaryScanInputs are mails and fragments where the scan for boundary
// parameters could differ from the regexps it stands for.
var boundaryScanInputs = []string{
	"",
	"boundary",
	"Boundary=x",
	"xboundary=a; boundary=b; _boundary=c; -BOUNDARY = \"d\\\"e\" ;boundary=",
	"boundary=a;boundary=\"b\nc\"boundary=d",
	"boundary*=''b1",
	"BOUNDARY*0=a",
	"boundar*",
	"boundaryboundary=x",
	"\xffboundary=\xfe; b",
}

// TestBoundaryScanIsTheRegexps: plainBoundaries finds what
// plainBoundary.FindAllSubmatch finds, and hasBoundaryStar what a search
// of the lower-cased mail finds, in every corpus mail and the fragments.
func TestBoundaryScanIsTheRegexps(t *testing.T) {
	inputs := slices.Clone(boundaryScanInputs)
	files, _ := filepath.Glob("testdata/enmime/*.raw")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, string(b))
	}
	for _, in := range inputs {
		checkBoundaryScan(t, []byte(in))
	}
}

func FuzzBoundaryScan(f *testing.F) {
	for _, in := range boundaryScanInputs {
		f.Add([]byte(in))
	}
	f.Fuzz(checkBoundaryScan)
}

func checkBoundaryScan(t *testing.T, raw []byte) {
	var want [][]byte
	for _, m := range plainBoundary.FindAllSubmatch(raw, -1) {
		want = append(want, m[1])
	}
	if got := plainBoundaries(raw); !slices.EqualFunc(got, want, bytes.Equal) {
		t.Errorf("%q: plainBoundaries %q, regexp %q", raw, got, want)
	}
	if got, want := hasBoundaryStar(raw), bytes.Contains(bytes.ToLower(raw), []byte("boundary*")); got != want {
		t.Errorf("%q: hasBoundaryStar %v, lower-case search %v", raw, got, want)
	}
}
