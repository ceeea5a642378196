package email

import (
	"bytes"
	"fmt"
	"mime"
)

// Bounds of a mail's structure beside MaxParts, checked by Scan before the
// mail is parsed: the MIME reader's work grows with the parts, how deep
// they nest and the size of their headers, so a mail past one is not read
// at all.
const (
	// MaxDepth is how deep multiparts may nest (Postfix's
	// mime_nesting_limit).
	MaxDepth = 100
	// MaxHeaderBytes bounds one header block: the mail's, or a part's.
	MaxHeaderBytes = 256 << 10
)

// maxContentType bounds the Content-Type field Scan keeps to read a
// boundary from; a longer one is cut (and its boundary likely lost, which
// only makes Scan see fewer parts than a reader might).
const maxContentType = 4 << 10

// TooComplex is the refusal of a mail past one of Scan's bounds; Reason
// says which, for the sender and the operator.
type TooComplex struct{ Reason string }

func (e *TooComplex) Error() string { return "mail too complex to read: " + e.Reason }

// Scan walks a raw mail's lines once, as a MIME reader finds its parts (a
// delimiter of an open multipart's boundary starts a part, its closing
// delimiter ends the multipart), and refuses it with a *TooComplex at the
// first bound it passes: more than MaxParts parts, multiparts nested more
// than MaxDepth deep, a header block over MaxHeaderBytes. Its work is one
// pass over the bytes plus, for a line starting with "--", a look at each
// open boundary, and it allocates only for the boundaries of multiparts,
// which the bounds limit.
func Scan(raw []byte) error {
	var s mimeScan
	for rest := raw; len(rest) > 0; {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line, rest = rest[:i+1], rest[i+1:]
		} else {
			rest = nil
		}
		if err := s.line(line); err != nil {
			return err
		}
	}
	return nil
}

// mimeScan is Scan's state between lines.
type mimeScan struct {
	// open are the boundaries of the open multiparts, innermost last.
	open     [][]byte
	parts    int
	body     bool
	header   int    // bytes of the header block being read
	ct       []byte // its Content-Type field, unfolded
	inCT, ok bool   // reading the Content-Type field; seen one
}

func (s *mimeScan) line(line []byte) error {
	text := bytes.TrimRight(line, "\r\n")
	if !s.body {
		return s.headerLine(line, text)
	}
	if len(s.open) == 0 || !bytes.HasPrefix(text, []byte("--")) {
		return nil
	}
	for k := len(s.open) - 1; k >= 0; k-- {
		b := s.open[k]
		if !bytes.HasPrefix(text[2:], b) {
			continue
		}
		switch string(bytes.TrimRight(text[2+len(b):], " \t")) {
		case "":
			if s.parts++; s.parts > MaxParts {
				return &TooComplex{Reason: fmt.Sprintf("more than %d MIME parts", MaxParts)}
			}
			s.open = s.open[:k+1]
			s.body, s.header, s.ct, s.inCT, s.ok = false, 0, s.ct[:0], false, false
			return nil
		case "--":
			s.open = s.open[:k]
			return nil
		}
	}
	return nil
}

// headerLine reads a line of a header block; the blank line ending it
// (or the first line that is not a field) opens the block's multipart, if
// it is one.
func (s *mimeScan) headerLine(line, text []byte) error {
	if s.header += len(line); s.header > MaxHeaderBytes {
		return &TooComplex{Reason: fmt.Sprintf("a header block over %d bytes", MaxHeaderBytes)}
	}
	switch {
	case len(text) == 0:
		s.body = true
		return s.multipart()
	case text[0] == ' ' || text[0] == '\t':
		if s.inCT {
			s.addCT(text)
		}
	case bytes.IndexByte(text, ':') < 0:
		// Not a field: the blank line is missing, and the body starts
		// here (as the MIME reader repairs it).
		s.header -= len(line)
		if err := s.headerLine(nil, nil); err != nil {
			return err
		}
		return s.line(line)
	default:
		s.inCT = !s.ok && len(text) > len("content-type:") && bytes.EqualFold(text[:len("content-type:")], []byte("content-type:"))
		if s.inCT {
			s.ok = true
			s.addCT(text[len("content-type:"):])
		}
	}
	return nil
}

func (s *mimeScan) addCT(b []byte) {
	s.ct = append(s.ct, b[:min(len(b), maxContentType-len(s.ct))]...)
}

// multipart opens the multipart a header block declared.
func (s *mimeScan) multipart() error {
	ct := bytes.TrimSpace(s.ct)
	if len(ct) < len("multipart/") || !bytes.EqualFold(ct[:len("multipart/")], []byte("multipart/")) {
		return nil
	}
	_, params, err := mime.ParseMediaType(string(ct))
	if err != nil || params["boundary"] == "" {
		return nil
	}
	if len(s.open) == MaxDepth {
		return &TooComplex{Reason: fmt.Sprintf("multiparts nested more than %d deep", MaxDepth)}
	}
	s.open = append(s.open, []byte(params["boundary"]))
	return nil
}
