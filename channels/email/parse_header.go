package email

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/emersion/go-message/mail"
	"github.com/jhillyerd/enmime/v2"
	"golang.org/x/text/encoding/charmap"
)

// MaxMessageID is the longest Message-ID kept (a header line's limit, RFC
// 5322 section 2.1.1): it is a key of the store, whose index takes no
// value much longer.
const MaxMessageID = 998

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
