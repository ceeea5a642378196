// Package whatsapp is the WhatsApp Cloud API adapter (docs/whatsapp.md):
// text, templates (body parameters), media (upload
// to /{phone_number_id}/media, sent by id), marketing templates through
// /marketing_messages; the template and onboarding sync of a WABA; and the
// download of inbound media with its sha256 check.
package whatsapp

import (
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/textproto"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Adapter sends WhatsApp messages through the Graph API.
type Adapter struct {
	Graph *meta.Client
}

// New is an adapter on cfg's Meta host.
func New(cfg meta.Config) *Adapter { return &Adapter{Graph: cfg.Graph()} }

var _ channels.Adapter = (*Adapter)(nil)

// captionMax is the longest caption WhatsApp takes; a longer text goes as a
// message of its own.
const captionMax = 1024

// Send sends m: a template (to /marketing_messages when it is marketing),
// else each attachment as a media message (the text as the caption of the
// first that takes one, or as a text message first), else the text.
func (a *Adapter) Send(ctx context.Context, m *channels.Message) (*channels.Receipt, error) {
	creds, err := credentials(m.Account)
	if err != nil {
		return nil, err
	}
	field, to := recipientOf(m.To)
	if to == "" {
		return nil, &channels.Refusal{Code: apierr.InvalidPhone, Reason: "The recipient has no phone number or WhatsApp user id to send to."}
	}
	if m.Template != nil {
		endpoint, body := "messages", addressed(templateBody(to, m.Template), field, to)
		if m.Template.Marketing {
			// /marketing_messages takes recipient_type and
			// biz_opaque_callback_data as /messages does.
			endpoint, body["recipient_type"] = "marketing_messages", "individual"
		}
		callback(body, m.ID)
		quoting(body, m)
		return a.postOne(ctx, creds, endpoint, body)
	}
	if body := addressed(richBody(m, to), field, to); body != nil {
		callback(body, m.ID)
		quoting(body, m)
		return a.postOne(ctx, creds, "messages", body)
	}
	parts, err := a.plan(m, field, to)
	if err != nil {
		return nil, err
	}
	quoting(parts[0].body, m)
	return a.sendParts(ctx, creds, parts)
}

// part is one provider message of a send: a body, or a media to upload
// first (file) and send under kind.
type part struct {
	body    map[string]any
	file    *channels.File
	kind    string
	caption string
}

// plan splits m into provider messages, checking each media's kind and
// size before anything is sent.
func (a *Adapter) plan(m *channels.Message, field, to string) ([]part, error) {
	text := ""
	if m.Text != nil {
		text = *m.Text
	}
	var parts []part
	captioned := false
	for i := range m.Attachments {
		f := &m.Attachments[i]
		kind := channels.WhatsAppMediaKind(f.ContentType, f.Size)
		if limit := channels.WhatsAppMaxSize(kind); f.Size > limit {
			return nil, &channels.Refusal{Code: apierr.AttachmentsTooLarge,
				Reason: fmt.Sprintf("WhatsApp takes a %s of at most %d MB; %s has %d bytes.", kind, limit>>20, f.Filename, f.Size)}
		}
		p := part{file: f, kind: kind}
		if !captioned && text != "" && len([]rune(text)) <= captionMax && kind != "audio" && kind != "sticker" {
			p.caption, captioned = text, true
		}
		parts = append(parts, p)
	}
	if text != "" && !captioned {
		body := addressed(map[string]any{"messaging_product": "whatsapp", "to": to, "type": "text", "text": map[string]any{"body": text}}, field, to)
		callback(body, m.ID)
		parts = append([]part{{body: body}}, parts...)
	}
	if len(parts) == 0 {
		return nil, &channels.Refusal{Code: apierr.TextRequired, Reason: "A WhatsApp message needs text, a template or an attachment."}
	}
	for i := range parts {
		if parts[i].file != nil {
			parts[i].body = addressed(map[string]any{"messaging_product": "whatsapp", "to": to, "type": parts[i].kind}, field, to)
			callback(parts[i].body, m.ID)
		}
	}
	return parts, nil
}

// callback names our message in a /messages body: Meta echoes
// biz_opaque_callback_data in every status of the wamid it answers, so a
// status still names the message when the process died before its confirm
// stored the wamid (graph/metahook settles such a message).
func callback(body map[string]any, messageID string) {
	if messageID != "" {
		body["biz_opaque_callback_data"] = messageID
	}
}

// sendParts sends the parts in order; a refusal of the first is the send's,
// a refusal of a later one leaves the message sent in part (Receipt.Failed).
func (a *Adapter) sendParts(ctx context.Context, creds *channels.Credentials, parts []part) (*channels.Receipt, error) {
	waID := ""
	r, err := channels.SendParts(len(parts), func(i int) (string, error) {
		id, w, err := a.sendPart(ctx, creds, parts[i])
		if waID == "" {
			waID = w
		}
		return id, err
	})
	if r != nil {
		r.RecipientWaID = waID
	}
	return r, err
}

// postOne sends a message of one request.
func (a *Adapter) postOne(ctx context.Context, creds *channels.Credentials, endpoint string, body map[string]any) (*channels.Receipt, error) {
	id, waID, err := a.postFor(ctx, creds, endpoint, body)
	if err != nil {
		return nil, err
	}
	return &channels.Receipt{ProviderIDs: []string{id}, RecipientWaID: waID}, nil
}

func (a *Adapter) sendPart(ctx context.Context, creds *channels.Credentials, p part) (string, string, error) {
	if p.file != nil {
		media := map[string]any{}
		if len(p.file.Content) > 0 {
			id, err := a.Upload(ctx, creds, p.file)
			if err != nil {
				// An upload is not the customer's message: whatever became
				// of it, nothing reached the customer.
				return "", "", channels.NotSent(err)
			}
			media["id"] = id
		} else {
			// No bytes at hand: WhatsApp fetches the signed link itself.
			media["link"] = p.file.URL
		}
		if p.caption != "" {
			media["caption"] = p.caption
		}
		if p.kind == "document" && p.file.Filename != "" {
			media["filename"] = p.file.Filename
		}
		p.body[p.kind] = media
	}
	return a.postFor(ctx, creds, "messages", p.body)
}

type sendAnswer struct {
	Contacts []struct {
		Input string `json:"input"`
		WaID  string `json:"wa_id"`
	} `json:"contacts"`
	Messages []struct {
		ID string `json:"id"`
	} `json:"messages"`
}

// postFor posts a message; it returns its wamid and the wa_id WhatsApp
// answered for the recipient.
func (a *Adapter) postFor(ctx context.Context, creds *channels.Credentials, endpoint string, body map[string]any) (string, string, error) {
	var out sendAnswer
	if err := a.Graph.PostJSON(ctx, creds.AccessToken, body, &out, creds.PhoneNumberID, endpoint); err != nil {
		return "", "", err
	}
	if len(out.Messages) == 0 || out.Messages[0].ID == "" {
		return "", "", &meta.Error{HTTPStatus: http.StatusOK, Unanswered: true, Message: "the provider accepted the message without a message id"}
	}
	waID := ""
	if len(out.Contacts) > 0 {
		waID = out.Contacts[0].WaID
	}
	return out.Messages[0].ID, waID, nil
}

// Upload posts a file to /{phone_number_id}/media (multipart:
// messaging_product, type, file) and returns its media id.
func (a *Adapter) Upload(ctx context.Context, creds *channels.Credentials, f *channels.File) (string, error) {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	if err := w.WriteField("messaging_product", "whatsapp"); err != nil {
		return "", err
	}
	if err := w.WriteField("type", f.ContentType); err != nil {
		return "", err
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", multipart.FileContentDisposition("file", f.Filename))
	h.Set("Content-Type", f.ContentType)
	fw, err := w.CreatePart(h)
	if err != nil {
		return "", err
	}
	if _, err := fw.Write(f.Content); err != nil {
		return "", err
	}
	if err := w.Close(); err != nil {
		return "", err
	}
	var out struct {
		ID string `json:"id"`
	}
	err = a.Graph.Do(ctx, http.MethodPost, a.Graph.URL(creds.PhoneNumberID, "media"), creds.AccessToken, w.FormDataContentType(), &buf, &out)
	if err != nil {
		return "", err
	}
	if out.ID == "" {
		return "", &meta.Error{HTTPStatus: http.StatusOK, Unanswered: true, Message: "the provider took the upload without a media id"}
	}
	return out.ID, nil
}

// credentials are the account's, or a refusal saying it cannot send live.
func credentials(acc channels.Account) (*channels.Credentials, error) {
	c := acc.Provider
	if c == nil || c.PhoneNumberID == "" || c.AccessToken == "" {
		return nil, &channels.Refusal{Code: apierr.ChannelUnavailable,
			Reason: fmt.Sprintf("The WhatsApp account %s has no provider credentials; nothing was sent.", acc.ID)}
	}
	return c, nil
}
