package email

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // charsets of encoded words
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"
	"github.com/jhillyerd/enmime/v2"
	"golang.org/x/text/encoding/charmap"
)

// Limits of what an inbound mail may bring; past them the mail is stored
// truncated, with a note in Notes.
const (
	MaxBodyBytes   = 2 << 20 // text and HTML, each
	MaxAttachments = 100
	MaxParts       = 2000
)

// MaxMessageID is the longest Message-ID kept (a header line's limit, RFC
// 5322 section 2.1.1): it is a key of the store, whose index takes no
// value much longer.
const MaxMessageID = 998

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

// looseHeader reads the "Name: value" lines of a header block the MIME
// reader refused, skipping the lines that are not fields.
func looseHeader(raw []byte) mail.Header {
	var h mail.Header
	block := raw[:len(raw)-len(headerless(raw))]
	var key, value string
	flush := func() {
		if key != "" {
			h.Add(key, latin1(strings.TrimSpace(value)))
		}
		key, value = "", ""
	}
	for _, line := range strings.Split(strings.ReplaceAll(string(block), "\r\n", "\n"), "\n") {
		if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
			value += " " + strings.TrimSpace(line)
			continue
		}
		flush()
		if k, v, ok := strings.Cut(line, ":"); ok && k != "" && !strings.ContainsAny(k, " \t") {
			key, value = k, v
		}
	}
	flush()
	return h
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

// headerOf is the root header as go-message reads addresses and ids from.
func headerOf(h map[string][]string) mail.Header {
	var out mail.Header
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			out.Add(k, latin1(v))
		}
	}
	return out
}

// latin1 reads a header value that is not UTF-8 (8-bit bytes sent raw) as
// Windows-1252, the superset of Latin-1 mailers mean most often.
func latin1(v string) string {
	if utf8.ValidString(v) {
		return v
	}
	if s, err := charmap.Windows1252.NewDecoder().String(v); err == nil {
		return s
	}
	return v
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

func (p *Parsed) headers(h mail.Header) {
	if from, err := h.AddressList("From"); err == nil && len(from) > 0 {
		p.From, p.FromName = strings.ToLower(from[0].Address), clean(p, from[0].Name)
	} else {
		p.From, p.FromName = looseAddress(clean(p, strings.TrimSpace(h.Get("From"))))
	}
	p.To, p.Cc = addressList(h, "To"), addressList(h, "Cc")
	var err error
	if p.Subject, err = h.Subject(); err != nil {
		p.Subject = h.Get("Subject")
	}
	p.Subject = clean(p, strings.TrimSpace(p.Subject))
	p.MessageID, _ = h.MessageID()
	p.MessageID = clean(p, p.MessageID)
	if len(p.MessageID) > MaxMessageID {
		p.warnf(warningCodes[enmime.ErrorMalformedHeader], "The Message-ID is longer than %d characters; it was not kept.", MaxMessageID)
		p.MessageID = ""
	}
	p.InReplyTo, _ = h.MsgIDList("In-Reply-To")
	p.References, _ = h.MsgIDList("References")
	p.AutoSubmitted = automatic(h)
	if ct, params, err := h.ContentType(); err == nil && ct == "multipart/report" && strings.EqualFold(params["report-type"], "delivery-status") {
		p.DSN = &DSN{}
	}
}

// automatic says a mail was sent by a machine, so the AI must not answer it: Auto-Submitted other than "no" (RFC 3834), and the
// older marks responders honour against mail loops: Precedence bulk, junk,
// list or auto_reply, X-Autoreply and X-Autorespond.
func automatic(h mail.Header) bool {
	value := func(k string) string { return strings.ToLower(strings.TrimSpace(h.Get(k))) }
	if v := value("Auto-Submitted"); v != "" {
		// The keyword, before any parameter or comment: "no (manual)".
		if end := strings.IndexAny(v, ";( \t"); end >= 0 {
			v = v[:end]
		}
		if v != "no" {
			return true
		}
	}
	switch value("Precedence") {
	case "bulk", "junk", "list", "auto_reply":
		return true
	}
	return h.Has("X-Autoreply") || h.Has("X-Autorespond")
}

// looseAddress reads a From that is not RFC 5322 (8-bit bytes in the
// name, two mailboxes run together): the address is what the first <…>
// holds, else the whole field.
func looseAddress(field string) (address, name string) {
	open := strings.Index(field, "<")
	end := -1
	if open >= 0 {
		if e := strings.Index(field[open:], ">"); e >= 0 {
			end = open + e
		}
	}
	if open < 0 || end < open {
		// A field run together with a line that was not a header: the
		// word with the @.
		for _, w := range strings.Fields(field) {
			if strings.Contains(w, "@") {
				return strings.ToLower(w), ""
			}
		}
		return strings.ToLower(field), ""
	}
	return strings.ToLower(strings.TrimSpace(field[open+1 : end])), strings.Trim(strings.TrimSpace(field[:open]), `"`)
}

func addressList(h mail.Header, key string) []string {
	out := []string{}
	list, err := h.AddressList(key)
	if err != nil {
		return out
	}
	for _, a := range list {
		if utf8.ValidString(a.Address) {
			out = append(out, strings.ToLower(a.Address))
		}
	}
	return out
}

// parts walks the leaves of the MIME tree in order: the first text and
// HTML parts, the delivery status of a DSN (also kept as an attachment),
// and the rest as attachments. A text part that could not be decoded gives
// way to the HTML part and is kept as an attachment.
func (p *Parsed) parts(root *enmime.Part) {
	dropped, n := 0, 0
	alternative := strings.EqualFold(root.ContentType, "multipart/alternative")
	var brokenText *enmime.Part
	var walk func(*enmime.Part) bool
	walk = func(part *enmime.Part) bool {
		for ; part != nil; part = part.NextSibling {
			if part.FirstChild != nil {
				if !walk(part.FirstChild) {
					return false
				}
				continue
			}
			if n++; n > MaxParts {
				p.note(WarnPartsLimit, "The mail has more than %d parts; the rest were not read.", MaxParts)
				return false
			}
			ct := strings.ToLower(part.ContentType)
			if ct == "" || !strings.Contains(ct, "/") {
				ct = "application/octet-stream"
			}
			if strings.HasPrefix(ct, "multipart/") {
				// A multipart whose boundary never came holds nothing.
				continue
			}
			inline := part.Disposition != "attachment"
			what := "part"
			if part.Parent == nil {
				what = "text"
			}
			for _, e := range part.Errors {
				switch e.Name {
				case enmime.ErrorContentEncoding:
					p.note(warningCodes[enmime.ErrorContentEncoding], "The transfer encoding %q is unknown; the %s is kept as it came.", part.Header.Get("Content-Transfer-Encoding"), what)
				case enmime.ErrorCharsetConversion:
					_, params, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
					p.note(WarnUnknownCharset, "The charset %q is unknown; the %s is kept as it came.", params["charset"], what)
				}
			}
			switch {
			case p.DSN != nil && (ct == "message/delivery-status" || ct == "message/global-delivery-status"):
				p.DSN.read(bytes.NewReader(part.Content))
			case inline && ct == "text/plain" && p.Text != "" && p.moreText(part, alternative):
				continue
			case inline && ct == "text/plain" && p.Text == "" && brokenText == nil:
				if undecodable(part) {
					brokenText = part
					p.warnf(WarnTextUndecodable, "The text part could not be decoded; the HTML part is shown and the text part kept as an attachment.")
					continue
				}
				p.Text = strings.TrimRight(clean(p, p.body(part.Content, "text")), "\r\n")
				continue
			case inline && ct == "text/html" && p.HTML == nil:
				html := clean(p, p.body(p.metaCharset(part), "HTML"))
				p.HTML = &html
				continue
			}
			if !p.attach(part, ct) {
				dropped++
			}
		}
		return true
	}
	walk(root)
	if brokenText != nil && p.HTML == nil && !binary(brokenText.Content) {
		// No HTML to fall back to: the text is shown as it could be read.
		p.Text = strings.TrimRight(clean(p, p.body(brokenText.Content, "text")), "\r\n")
	} else if brokenText != nil && !p.attach(brokenText, "text/plain") {
		dropped++
	}
	if dropped > 0 {
		p.note(WarnAttachmentsLimit, "%d attachments over the limit of %d were not kept.", dropped, MaxAttachments)
	}
}

// undecodable says a text part's bytes are not text: base64 that was not
// (a malformed-base64 repair left bytes that are not UTF-8, or control
// characters), or binary data declared text (a GIF sent as text/plain).
func undecodable(part *enmime.Part) bool {
	malformed := false
	for _, e := range part.Errors {
		if e.Name == enmime.ErrorMalformedBase64 || e.Name == enmime.ErrorMalformedChildPart {
			malformed = true
		}
	}
	if binary(part.Content) {
		return true
	}
	return malformed && (!utf8.Valid(part.Content) || controls(part.Content, true)*20 > len(part.Content))
}

// binary says bytes are data, not text: control characters (NUL and the
// like), at least 3 and more than one in 20.
func binary(b []byte) bool {
	n := controls(b, false)
	return n >= 3 && n*20 > len(b)
}

// controls counts the control characters of b other than line and page
// breaks and tabs; invalid counts bytes that are not UTF-8 too.
func controls(b []byte, invalid bool) int {
	n := 0
	for _, r := range string(b) {
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f' || r == 0x7f || invalid && r == utf8.RuneError {
			n++
		}
	}
	return n
}

// moreText adds a further text part of a mail that is not, as a whole, an
// alternative to its text (alternative: the mail is multipart/alternative),
// as enmime does ("--" on a line between); a named one is kept as an
// attachment too, once. False when it is not such a part, would pass
// MaxBodyBytes, or is named and past MaxAttachments (the caller then
// counts it dropped).
func (p *Parsed) moreText(part *enmime.Part, alternative bool) bool {
	if alternative || len(p.Text)+len(part.Content) > MaxBodyBytes || undecodable(part) {
		return false
	}
	p.Text += "\n\n--\n" + strings.TrimRight(clean(p, string(part.Content)), "\r\n")
	return part.FileName == "" || p.attach(part, "text/plain")
}

func (p *Parsed) warnf(code, format string, args ...any) {
	p.Warnings = AddWarning(p.Warnings, Warning{Code: code, Detail: fmt.Sprintf(format, args...)})
}

// attach keeps a part as an attachment; false when over the limit.
func (p *Parsed) attach(part *enmime.Part, ct string) bool {
	if len(p.Attachments) == MaxAttachments {
		return false
	}
	name := part.FileName
	if name == "" {
		name = fmt.Sprintf("attachment-%d%s", len(p.Attachments)+1, extension(ct))
	}
	content := part.Content
	if content == nil {
		// Base64 that decodes to nothing (one stray character): an empty
		// file, its repair among the warnings.
		content = []byte{}
	}
	p.Attachments = append(p.Attachments, File{Filename: clean(p, name), ContentType: ct,
		ContentID: clean(p, strings.Trim(strings.TrimSpace(part.ContentID), "<>")), Content: content})
	return true
}

func extension(ct string) string {
	switch ct {
	case "message/rfc822":
		return ".eml"
	case "text/plain":
		return ".txt"
	case "text/html":
		return ".html"
	}
	if exts, _ := mime.ExtensionsByType(ct); len(exts) > 0 {
		return exts[0]
	}
	return ""
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

// DSN is a delivery status notification (RFC 3464).
type DSN struct {
	Recipients []DSNRecipient
}

// DSNRecipient is the status of one recipient.
type DSNRecipient struct {
	Recipient  string
	Action     string
	Status     string
	Diagnostic string
}

// Permanent says the status is a 5.x.x (a hard bounce).
func (r DSNRecipient) Permanent() bool { return strings.HasPrefix(r.Status, "5.") }

// read takes the per-recipient blocks of a message/delivery-status body.
func (d *DSN) read(r io.Reader) {
	br := bufio.NewReader(io.LimitReader(r, 1<<20))
	for i := 0; i < 1000; i++ {
		h, err := textproto.ReadHeader(br)
		if err != nil && h.Len() == 0 {
			return
		}
		if h.Has("Action") || h.Has("Final-Recipient") {
			d.Recipients = append(d.Recipients, DSNRecipient{
				Recipient:  strings.ToLower(addressOf(h.Get("Final-Recipient"), h.Get("Original-Recipient"))),
				Action:     strings.ToLower(strings.TrimSpace(h.Get("Action"))),
				Status:     strings.TrimSpace(strings.SplitN(h.Get("Status"), " ", 2)[0]),
				Diagnostic: strings.TrimSpace(h.Get("Diagnostic-Code")),
			})
		}
		if err != nil {
			return
		}
	}
}

// addressOf reads "rfc822; ada@example.com".
func addressOf(fields ...string) string {
	for _, f := range fields {
		if _, addr, ok := strings.Cut(f, ";"); ok && strings.TrimSpace(addr) != "" {
			return strings.Trim(strings.TrimSpace(addr), "<>")
		}
	}
	return ""
}
