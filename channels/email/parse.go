package email

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // charsets other than UTF-8 and ASCII
	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"
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
	Content     []byte
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
}

func (p *Parsed) note(format string, args ...any) {
	n := fmt.Sprintf(format, args...)
	if !slices.Contains(p.Notes, n) {
		p.Notes = append(p.Notes, n)
	}
}

// ParserFailed is the note of a mail the reader failed on unexpectedly.
const ParserFailed = "The mail could not be read (a fault of msgsvc's parser); its raw text is kept."

// Parse reads an inbound mail. It never fails: what cannot be read becomes a
// note, and a mail that is not MIME at all is kept as text.
func Parse(raw []byte) (parsed *Parsed) {
	defer func() {
		// A reader bug must not take the listener's worker down with the
		// mail; the fuzz target fails on this note.
		if v := recover(); v != nil {
			parsed = &Parsed{}
			parsed.note(ParserFailed)
			parsed.rawText(raw)
		}
	}()
	p := &Parsed{}
	// message.Read, not mail.CreateReader: on an unknown transfer encoding
	// the latter returns no reader at all; this keeps the raw body.
	e, err := message.Read(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err) {
		p.note("The mail could not be read as MIME (%s); its raw text is kept.", strings.TrimSpace(err.Error()))
		p.rawText(raw)
		return p
	}
	r := mail.NewReader(e)
	if err != nil {
		p.note("%s; the text is kept as it came.", unknown(err, &r.Header))
	}
	defer r.Close()
	p.headers(r.Header)
	p.parts(r)
	if p.Text == "" && p.HTML == nil && len(p.Attachments) == 0 && p.DSN == nil && len(p.Notes) > 0 {
		// Nothing could be taken from a broken body: keep it as text.
		p.note("The body could not be read as MIME; its raw text is kept.")
		p.rawText(raw)
	}
	if p.Text == "" && p.HTML != nil {
		p.Text = HTMLToText(*p.HTML)
	}
	return p
}

// unknown names the charset or transfer encoding of a header go-message
// did not know.
func unknown(err error, h interface{ Get(string) string }) string {
	if message.IsUnknownEncoding(err) {
		return fmt.Sprintf("The transfer encoding %q is unknown", h.Get("Content-Transfer-Encoding"))
	}
	_, params, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return fmt.Sprintf("The charset %q is unknown", params["charset"])
}

// rawText keeps the body of a mail that is not MIME as its text.
func (p *Parsed) rawText(raw []byte) {
	p.Text = strings.TrimRight(clean(p, p.body(bytes.NewReader(headerless(raw)), "text")), "\r\n")
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
// name, say): the address is what the last <…> holds, else the whole field.
func looseAddress(field string) (address, name string) {
	open, end := strings.LastIndex(field, "<"), strings.LastIndex(field, ">")
	if open < 0 || end < open {
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

// parts walks the flattened MIME tree: the first text and HTML parts, the
// delivery status of a DSN, and the rest as attachments.
func (p *Parsed) parts(r *mail.Reader) {
	dropped := 0
	for n := 0; ; n++ {
		if n == MaxParts {
			p.note("The mail has more than %d parts; the rest were not read.", MaxParts)
			return
		}
		part, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil && (part == nil || (!message.IsUnknownCharset(err) && !message.IsUnknownEncoding(err))) {
			p.note("A part could not be read (%v); the rest of the mail was not read.", err)
			break
		}
		if err != nil {
			p.note("%s; the part is kept as it came.", unknown(err, part.Header))
		}
		if !p.part(part) {
			dropped++
		}
	}
	if dropped > 0 {
		p.note("%d attachments over the limit of %d were not kept.", dropped, MaxAttachments)
	}
}

// part takes one part; false when it was an attachment over the limit.
func (p *Parsed) part(part *mail.Part) bool {
	ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
	if ct == "" {
		ct = "text/plain"
	}
	_, inline := part.Header.(*mail.InlineHeader)
	switch {
	case p.DSN != nil && (ct == "message/delivery-status" || ct == "message/global-delivery-status"):
		p.DSN.read(part.Body)
		return true
	case inline && ct == "text/plain" && p.Text == "":
		p.Text = strings.TrimRight(clean(p, p.body(part.Body, "text")), "\r\n")
		return true
	case inline && ct == "text/html" && p.HTML == nil:
		html := clean(p, p.body(part.Body, "HTML"))
		p.HTML = &html
		return true
	}
	if len(p.Attachments) == MaxAttachments {
		_, _ = io.Copy(io.Discard, part.Body)
		return false
	}
	name := ""
	if ah, ok := part.Header.(*mail.AttachmentHeader); ok {
		name, _ = ah.Filename()
	}
	if name == "" {
		_, params, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
		name = params["filename"]
	}
	if name == "" {
		_, params, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		name = params["name"]
	}
	if name == "" {
		name = fmt.Sprintf("attachment-%d%s", len(p.Attachments)+1, extension(ct))
	}
	content, err := io.ReadAll(part.Body)
	if err != nil {
		p.note("Attachment %s could not be read (%v).", name, err)
	}
	p.Attachments = append(p.Attachments, File{Filename: clean(p, name), ContentType: ct, Content: content})
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

// body reads a text body, truncated past MaxBodyBytes with a note.
func (p *Parsed) body(r io.Reader, what string) string {
	b, err := io.ReadAll(io.LimitReader(r, MaxBodyBytes+1))
	if err != nil {
		p.note("The %s part could not be read to its end (%v).", what, err)
	}
	if len(b) > MaxBodyBytes {
		b = b[:MaxBodyBytes]
		n, _ := io.Copy(io.Discard, r)
		p.note("The %s part was truncated to %d bytes (it had %d).", what, MaxBodyBytes, int64(MaxBodyBytes+1)+n)
	}
	return string(b)
}

// clean makes a string storable: valid UTF-8 and no NUL (Postgres refuses
// both), noting the change.
func clean(p *Parsed, s string) string {
	if utf8.ValidString(s) && !strings.ContainsRune(s, 0) {
		return s
	}
	p.note("Bytes that are not UTF-8 text were replaced.")
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
