package email

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // charsets of encoded words
	"github.com/jhillyerd/enmime/v2"
)

// Limits of what an inbound mail may bring; past them the mail is stored
// truncated, with a note in Notes.
const (
	MaxBodyBytes   = 2 << 20 // text and HTML, each
	MaxAttachments = 100
	MaxParts       = 2000
)

// File is an attachment of an inbound mail.
type File struct {
	Filename    string
	ContentType string
	// ContentID is the part's Content-ID without its <>, for the cid:
	// links of the HTML ("" when it has none).
	ContentID string
	Content   []byte
}

// Parsed is an inbound mail as msgsvc stores it.
type Parsed struct {
	MessageID  string
	InReplyTo  []string
	References []string
	From       string
	FromName   string
	To, Cc     []string
	Subject    string
	// Text is the text part, or the text made from the HTML.
	Text string
	// HTML is the text/html part after its transfer decoding, as UTF-8
	// (html_raw); nil when the mail has none.
	HTML          *string
	Attachments   []File
	AutoSubmitted bool
	// DSN is set for a multipart/report; report-type=delivery-status.
	DSN *DSN
	// Notes say what could not be taken as it came (shown with the text).
	Notes []string
	// Warnings say what the parser repaired to read the mail (a header
	// line, base64 padding, a charset): email.warnings.
	Warnings []Warning
}

// note records what could not be taken as it came, in Notes and as a
// warning with its code.
func (p *Parsed) note(code, format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !slices.Contains(p.Notes, n) {
		p.Notes = append(p.Notes, n)
	}
	p.Warnings = AddWarning(p.Warnings, Warning{Code: code, Detail: n})
}

// ParserFailed is the note of a mail the reader failed on unexpectedly.
const ParserFailed = "The mail could not be read (a fault of msgsvc's parser); its raw text is kept."

// parser reads mail as the lenient parsers do (enmime): malformed header
// lines and continuations, a missing blank line after the headers, a
// leading mbox "From " line, base64 without padding or with stray
// characters, quoted-printable with bad escapes, RFC 2231 parameters,
// unknown transfer encodings (kept as they came), and a declared charset
// checked against the one detected.
var parser = enmime.NewParser(
	enmime.SkipMalformedParts(true),
	enmime.SetReadPartErrorPolicy(enmime.AllowCorruptTextPartErrorPolicy),
	enmime.DisableTextConversion(true),
)

// Parse reads an inbound mail. It never fails: what cannot be read becomes a
// note, what was repaired a warning, and a mail that is not MIME at all is
// kept as text.
func Parse(raw []byte) (parsed *Parsed) {
	defer func() {
		// A reader bug must not take the listener's worker down with the
		// mail; the fuzz target fails on this note.
		if v := recover(); v != nil {
			parsed = &Parsed{}
			parsed.note(WarnParserFailed, ParserFailed)
			parsed.rawText(raw)
		}
	}()
	p := &Parsed{}
	raw = fixBoundaries(raw)
	if unsafeNesting(raw) {
		p.note(WarnRawText, "The mail nests parts more than %d deep with boundaries that never close; its raw text is kept.", MaxUnclosedDepth)
		p.rawText(raw)
		return p
	}
	env, err := parser.ReadEnvelope(bytes.NewReader(raw))
	if err != nil {
		p.note(WarnRawText, "The mail could not be read as MIME (%s); its raw text is kept.", strings.TrimSpace(err.Error()))
		p.headers(looseHeader(raw))
		p.rawText(raw)
		return p
	}
	for _, e := range env.Errors {
		if e.Name != enmime.ErrorPlainTextFromHTML { // not a repair: text is made from HTML below
			p.warn(e)
		}
	}
	p.headers(headerOf(env.Root.Header))
	p.parts(env.Root)
	if p.Text == "" && p.HTML == nil && len(p.Attachments) == 0 && p.DSN == nil &&
		(len(p.Notes) > 0 || len(bytes.TrimSpace(headerless(raw))) > 0) {
		// Nothing could be taken from a broken body: keep it as text.
		p.note(WarnRawText, "The body could not be read as MIME; its raw text is kept.")
		p.rawText(raw)
	}
	if p.Text == "" && p.HTML != nil {
		p.Text = HTMLToText(*p.HTML)
	}
	return p
}

// MaxUnclosedDepth is how deep multiparts may nest in a mail whose
// boundaries do not all close: enmime's reader takes time exponential in
// the depth of unclosed boundaries (22 levels: seconds), so deeper mail is
// kept as raw text. Well-formed mail nests as deep as it likes.
const MaxUnclosedDepth = 8

// unsafeNesting walks the MIME tree with go-message (linear time, bodies
// discarded) and says it nests deeper than MaxUnclosedDepth with a
// multipart that did not read to its end.
func unsafeNesting(raw []byte) bool {
	e, err := message.Read(bytes.NewReader(raw))
	if e == nil || (err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err)) {
		return false
	}
	depth, closed := 0, true
	_ = e.Walk(func(path []int, entity *message.Entity, err error) error {
		depth = max(depth, len(path))
		// go-message takes an end of input for the end of every open
		// multipart; enmime does not, so look for each terminator.
		if mr := entity.MultipartReader(); mr != nil {
			if _, params, _ := entity.Header.ContentType(); !bytes.Contains(raw, []byte("--"+params["boundary"]+"--")) {
				closed = false
			}
		}
		return nil
	})
	return !closed && depth > MaxUnclosedDepth
}

// MaxWarnings bounds the repairs recorded on one mail.
const MaxWarnings = 20

// warn records a repair of the parser (enmime's errors and warnings).
func (p *Parsed) warn(e *enmime.Error) {
	p.Warnings = AddWarning(p.Warnings, Warning{Code: warningCode(e.Name), Detail: clean(p, e.Name+detailOf(e))})
}

func detailOf(e *enmime.Error) string {
	if e.Detail == "" {
		return ""
	}
	return ": " + e.Detail
}

// rawText keeps the body of a mail that is not MIME as its text.
func (p *Parsed) rawText(raw []byte) {
	p.Text = strings.TrimRight(clean(p, p.body(headerless(raw), "text")), "\r\n")
}

// headerless is the body of a raw mail (after the first blank line).
func headerless(raw []byte) []byte {
	for _, sep := range []string{"\r\n\r\n", "\n\n"} {
		if i := bytes.Index(raw, []byte(sep)); i >= 0 {
			return raw[i+len(sep):]
		}
	}
	return raw
}

func (p *Parsed) warnf(code, format string, args ...any) {
	p.Warnings = AddWarning(p.Warnings, Warning{Code: code, Detail: fmt.Sprintf(format, args...)})
}

// body is a text body, truncated past MaxBodyBytes with a note.
func (p *Parsed) body(b []byte, what string) string {
	if len(b) > MaxBodyBytes {
		p.note(WarnTruncated, "The %s part was truncated to %d bytes (it had %d).", what, MaxBodyBytes, len(b))
		b = b[:MaxBodyBytes]
	}
	return string(b)
}

// clean makes a string storable: valid UTF-8 and no NUL (Postgres refuses
// both), noting the change.
func clean(p *Parsed, s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	p.note(WarnNotUTF8, "Bytes that are not UTF-8 text were replaced.")
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}
