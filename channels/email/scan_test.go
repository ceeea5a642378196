package email

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// partsBomb is a mail of n tiny text/plain parts.
func partsBomb(n int) []byte {
	var b bytes.Buffer
	b.WriteString("From: a@example.com\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n")
	for range n {
		b.WriteString("--b\r\nContent-Type: text/plain\r\n\r\nx\r\n")
	}
	b.WriteString("--b--\r\n")
	return b.Bytes()
}

// nestingBomb is a mail of multiparts nested n deep.
func nestingBomb(n int) []byte {
	var b bytes.Buffer
	b.WriteString("From: a@example.com\r\nContent-Type: multipart/mixed; boundary=b0\r\n\r\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n", i-1, i)
	}
	fmt.Fprintf(&b, "--b%d\r\nContent-Type: text/plain\r\n\r\nx\r\n", n)
	for i := n; i >= 0; i-- {
		fmt.Fprintf(&b, "--b%d--\r\n", i)
	}
	return b.Bytes()
}

// headerBomb is a mail whose header block has n bytes of fields.
func headerBomb(n int) []byte {
	field := "X-Filler: " + string(bytes.Repeat([]byte("y"), 88)) + "\r\n"
	return []byte(string(bytes.Repeat([]byte(field), n/len(field)+1)) + "From: a@example.com\r\n\r\nhello\r\n")
}

// Scan refuses a parts bomb, a nesting bomb and a header bomb, and its work
// does not grow with the bomb: it stops at the bound, allocating the same
// whether the mail has ten times more parts, or nests ten times deeper.
func TestScanRefusesBombsWithBoundedWork(t *testing.T) {
	for name, bombs := range map[string][2][]byte{
		"parts":   {partsBomb(20_000), partsBomb(200_000)},
		"nesting": {nestingBomb(2_000), nestingBomb(20_000)},
		"header":  {headerBomb(MaxHeaderBytes + 1), headerBomb(10 * MaxHeaderBytes)},
	} {
		var allocs [2]float64
		for i, raw := range bombs {
			var tooComplex *TooComplex
			if err := Scan(raw); !errors.As(err, &tooComplex) {
				t.Fatalf("%s bomb of %d bytes: %v; want it refused", name, len(raw), err)
			}
			allocs[i] = testing.AllocsPerRun(3, func() { _ = Scan(raw) })
		}
		// A little slack for what other goroutines allocate meanwhile.
		if allocs[1] > allocs[0]+10 || allocs[1] > 10*MaxDepth {
			t.Errorf("%s bombs: %v allocations for the small one, %v for the one ten times larger; want about the same, at most %d",
				name, allocs[0], allocs[1], 10*MaxDepth)
		}
	}
}

// Scan takes a mail at its bounds, and every test mail of the parser.
func TestScanTakesMailWithinItsBounds(t *testing.T) {
	for name, raw := range map[string][]byte{"parts": partsBomb(MaxParts), "nesting": nestingBomb(MaxDepth - 1),
		"header": headerBomb(MaxHeaderBytes - 200)} {
		if err := Scan(raw); err != nil {
			t.Errorf("%s at its bound: %v", name, err)
		}
	}
	files, _ := filepath.Glob("testdata/*.eml")
	files2, _ := filepath.Glob("testdata/enmime/*.raw")
	for _, f := range append(files, files2...) {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := Scan(raw); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if len(files)+len(files2) == 0 {
		t.Fatal("no test mails")
	}
}
