package email

import (
	"bytes"
	"fmt"
	"mime"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Boundaries the MIME reader gets wrong are rewritten before it reads the
// mail (only when the mail has them; html_raw and attachments are the
// parts' bodies, which keep their bytes):
//   - an RFC 2231 boundary*= (Go's reader refuses one without a charset,
//     as in boundary*=''b1, or with one other than us-ascii and utf-8)
//     becomes a plain boundary="…";
//   - a multipart nested in one with the same boundary gets a boundary of
//     its own, up to its first closing delimiter.

// boundaryValue is a plain boundary= parameter, its value the group.
const boundaryValue = `boundary\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]+)`

var (
	contentTypeField = regexp.MustCompile(`(?im)^content-type:[^\r\n]*(?:\r?\n[ \t][^\r\n]*)*`)
	boundaryParam    = regexp.MustCompile(`(?i);?\s*boundary\*(\d+)?(\*)?\s*=\s*("(?:[^"\\]|\\.)*"|[^;\s]*)`)
	plainBoundary    = regexp.MustCompile(`(?i)\b` + boundaryValue)
	// boundaryAt is plainBoundary where a "boundary" starts.
	boundaryAt    = regexp.MustCompile(`^(?i)` + boundaryValue)
	boundaryChars = regexp.MustCompile(`^[0-9A-Za-z'()+_,./:=? -]{0,69}[0-9A-Za-z'()+_,./:=?-]$`)
)

// fixBoundaries is raw with its boundaries made readable (the same bytes
// when nothing needs it).
func fixBoundaries(raw []byte) []byte {
	if hasBoundaryStar(raw) {
		raw = contentTypeField.ReplaceAllFunc(raw, rfc2231Boundary)
	}
	return nestedBoundaries(raw)
}

// indexBoundary is the index of the first "boundary", in any case, in b
// from i on; -1 when there is none. It reads a mail of megabytes of
// attachments far faster than a case-insensitive regexp, which has no
// literal to look for.
func indexBoundary(b []byte, i int) int {
	for ; i < len(b); i++ {
		j := bytes.IndexAny(b[i:], "bB")
		if j < 0 {
			return -1
		}
		i += j
		if len(b)-i >= len("boundary") && bytes.EqualFold(b[i:i+len("boundary")], []byte("boundary")) {
			return i
		}
	}
	return -1
}

// hasBoundaryStar says b holds "boundary*" in any case.
func hasBoundaryStar(b []byte) bool {
	for i := indexBoundary(b, 0); i >= 0; i = indexBoundary(b, i+1) {
		if i+len("boundary") < len(b) && b[i+len("boundary")] == '*' {
			return true
		}
	}
	return false
}

// plainBoundaries are the values of plainBoundary's matches in raw, as
// plainBoundary.FindAllSubmatch finds them.
func plainBoundaries(raw []byte) [][]byte {
	var out [][]byte
	for i := indexBoundary(raw, 0); i >= 0; {
		if i > 0 && isWordByte(raw[i-1]) {
			i = indexBoundary(raw, i+1)
			continue
		}
		m := boundaryAt.FindSubmatchIndex(raw[i:])
		if m == nil {
			i = indexBoundary(raw, i+1)
			continue
		}
		out = append(out, raw[i+m[2]:i+m[3]])
		i = indexBoundary(raw, i+m[1])
	}
	return out
}

// isWordByte is a byte of \w, the word of a regexp's \b.
func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// rfc2231Boundary rewrites one Content-Type field's boundary*= parameters
// (Go's reader refuses some, and reads a continued one without a charset
// with its empty charset and language marks as part of the value).
func rfc2231Boundary(field []byte) []byte {
	segments := boundaryParam.FindAllSubmatch(field, -1)
	if len(segments) == 0 {
		return field
	}
	sort.SliceStable(segments, func(i, j int) bool {
		a, _ := strconv.Atoi(string(segments[i][1]))
		b, _ := strconv.Atoi(string(segments[j][1]))
		return a < b
	})
	var value strings.Builder
	for i, s := range segments {
		v := string(s[3])
		if uq, err := strconv.Unquote(v); err == nil && strings.HasPrefix(v, `"`) {
			v = uq
		}
		// Extended (charset'language'percent-encoded): boundary*= or
		// boundary*N*=.
		if len(s[1]) == 0 || len(s[2]) > 0 {
			if i == 0 {
				if parts := strings.SplitN(v, "'", 3); len(parts) == 3 {
					v = parts[2]
				}
			}
			if dec, err := url.PathUnescape(v); err == nil {
				v = dec
			}
		}
		value.WriteString(v)
	}
	b := value.String()
	if !boundaryChars.MatchString(b) {
		return field
	}
	out := boundaryParam.ReplaceAll(field, nil)
	return append(out, []byte(`; boundary="`+b+`"`)...)
}

// nestedBoundaries gives a multipart whose boundary an enclosing multipart
// already uses a boundary of its own: its delimiters are the lines of that
// boundary from its header to its first closing delimiter.
func nestedBoundaries(raw []byte) []byte {
	seen, repeated := map[string]bool{}, false
	for _, m := range plainBoundaries(raw) {
		b := strings.Trim(string(m), `"`)
		repeated = repeated || seen[b]
		seen[b] = true
	}
	if !repeated {
		return raw
	}
	lines := bytes.SplitAfter(raw, []byte("\n"))
	var open []string              // the boundaries open, innermost last
	renamed := map[string]string{} // an open nested boundary's new name
	inHeader := true
	for i := 0; i < len(lines); i++ {
		line := strings.TrimRight(string(lines[i]), "\r\n")
		switch {
		case inHeader && line == "":
			inHeader = false
		case inHeader && len(contentTypeField.FindIndex([]byte(line))) > 0:
			end := i + 1
			field := line
			for ; end < len(lines) && (bytes.HasPrefix(lines[end], []byte(" ")) || bytes.HasPrefix(lines[end], []byte("\t"))); end++ {
				field += strings.TrimRight(string(lines[end]), "\r\n")
			}
			_, params, err := mime.ParseMediaType(field[len("content-type:"):])
			b := params["boundary"]
			if err != nil || b == "" {
				continue
			}
			if slices.Contains(open, b) {
				nb := fmt.Sprintf("%s.msgsvc%d", b, len(open))
				renameParam(lines[i:end], nb)
				renamed[nb] = b
				b = nb
			}
			open = append(open, b)
		case strings.HasPrefix(line, "--") && len(open) > 0:
			inHeader = delimiter(lines, i, line, &open, renamed)
		}
	}
	return bytes.Join(lines, nil)
}

// renameParam sets the boundary parameter of a Content-Type field's lines.
func renameParam(field [][]byte, name string) {
	for j, l := range field {
		if loc := plainBoundary.FindSubmatchIndex(l); loc != nil {
			field[j] = append(append(append([]byte{}, l[:loc[2]]...), `"`+name+`"`...), l[loc[3]:]...)
			return
		}
	}
}

// delimiter reads a "--boundary" line of the innermost open boundary
// whose name matches (rewriting it to a renamed boundary's name); it says
// a part's header follows.
func delimiter(lines [][]byte, i int, line string, open *[]string, renamed map[string]string) bool {
	for k := len(*open) - 1; k >= 0; k-- {
		b := (*open)[k]
		name := b
		if orig, ok := renamed[b]; ok {
			name = orig
		}
		rest := strings.TrimRight(strings.TrimPrefix(line, "--"+name), " \t")
		if !strings.HasPrefix(line, "--"+name) || (rest != "" && rest != "--") {
			continue
		}
		if name != b {
			lines[i] = bytes.Replace(lines[i], []byte("--"+name), []byte("--"+b), 1)
		}
		if rest == "--" {
			*open = (*open)[:k]
			return false
		}
		*open = (*open)[:k+1]
		return true
	}
	return false
}
