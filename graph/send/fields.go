package send

import (
	"context"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/contact"
	"github.com/msgsvc/msgsvc/graph/files"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// sendRequest is a send whose body shape and field rules passed: who it goes
// to and what it says, normalized.
type sendRequest struct {
	in        model.SendMessageInput
	marketing bool
	// binding is the Idempotency-Key the send runs under; nil without one.
	binding *KeyBinding
	// channel is known up front for a new conversation and set from the
	// conversation for a reply.
	channel string
	to      string
	from    string
	cc      []string
	text    *string
	html    *string
	subject string
	replyAs string
	files   []attachmentRequest
	// numbers are the connected WhatsApp numbers the key reaches (read for
	// new WhatsApp conversations only).
	numbers []repo.Account
	// sender is the AI or an agent on an internal send (Reply); nil for
	// the API.
	sender *Sender
	// humanAgentTag: an Instagram DM a person wrote, sent between 24 hours
	// and 7 days after the customer last wrote (human_agent.go).
	humanAgentTag bool
	// async queues the message for the pacer (queue.go); batchID is the
	// batch it belongs to.
	async   bool
	batchID string
}

// attachmentRequest is one attachment: an uploaded file's id, or a file
// given inline.
type attachmentRequest struct {
	fileID   string
	meta     files.Meta
	content  []byte
	declared *string
}

func nonBlank(s *string) *string {
	if s == nil || strings.TrimSpace(*s) == "" {
		return nil
	}
	return s
}

// sendFields checks the body shape and the field rules (docs/api.md,
// Sending), in order, before anything is looked up (but the key's WhatsApp
// numbers, which whatsapp_account_required needs).
func (s *Service) sendFields(ctx context.Context, a *auth.Actor, in model.SendMessageInput, marketing bool, longKey int) (*sendRequest, error) {
	req := &sendRequest{in: in, marketing: marketing, text: nonBlank(in.Text), html: nonBlank(in.HTML)}
	reply := in.ConversationID != nil
	switch {
	case reply && (in.Channel != nil || in.To != nil || in.ContactID != nil):
		return nil, apierr.New(apierr.InvalidRequest, "Give conversation_id to reply, or channel with to or contact_id to start a conversation; not both.")
	case reply && strings.TrimSpace(*in.ConversationID) == "":
		return nil, apierr.New(apierr.InvalidRequest, "conversation_id must not be empty.")
	case !reply && in.Channel == nil:
		return nil, apierr.New(apierr.InvalidRequest, "Give conversation_id to reply, or channel with to or contact_id to start a conversation.")
	}
	if !reply {
		req.channel = *in.Channel
		switch {
		case !channels.Valid(req.channel):
			return nil, apierr.New(apierr.InvalidRequest, "channel must be one of whatsapp, instagram, email.")
		case req.channel == "website":
			return nil, apierr.New(apierr.InvalidRequest, "Website chats cannot be started through the API; reply to one with conversation_id.")
		case (in.To == nil) == (in.ContactID == nil):
			return nil, apierr.New(apierr.InvalidRequest, "A new conversation needs to or contact_id (exactly one of them).")
		}
	}
	if in.ReplyAs != nil {
		if req.replyAs = *in.ReplyAs; req.replyAs != "comment" && req.replyAs != "dm" {
			return nil, apierr.New(apierr.InvalidRequest, "reply_as must be comment or dm.")
		}
	}
	if t := in.Template; t != nil && (nonBlank(t.Name) == nil || nonBlank(t.Language) == nil) {
		return nil, apierr.New(apierr.InvalidRequest, "template needs name and language.")
	}
	if req.channel != "" {
		if err := fieldsFit(req, nil); err != nil {
			return nil, err
		}
	}
	// Field rules, in their documented order.
	if req.text == nil && req.html == nil && in.Template == nil && len(in.Attachments) == 0 && in.Reaction == nil && in.Location == nil && len(in.Contacts) == 0 && in.Interactive == nil {
		return nil, apierr.New(apierr.TextRequired, "The message has no content: give text, html (email), a template (WhatsApp) or attachments.")
	}
	if req.channel == "email" {
		if nonBlank(in.From) == nil {
			return nil, apierr.New(apierr.FromRequired, "A new email needs from, an address of a verified domain.")
		}
		if nonBlank(in.Subject) == nil {
			return nil, apierr.New(apierr.SubjectRequired, "A new email needs a subject.")
		}
	}
	if in.Subject != nil {
		req.subject = strings.TrimSpace(*in.Subject)
	}
	if err := req.addresses(); err != nil {
		return nil, err
	}
	if err := req.attachments(); err != nil {
		return nil, err
	}
	if longKey > 0 {
		return nil, apierr.New(apierr.InvalidIdempotencyKey, "Idempotency-Key is %d characters; at most 255 are allowed.", longKey)
	}
	if req.channel == "whatsapp" {
		numbers, err := s.reachableNumbers(ctx, a, in.WhatsappAccountID)
		if err != nil {
			return nil, err
		}
		req.numbers = numbers
	}
	return req, nil
}

// addresses normalizes to, from and cc: invalid_email, invalid_phone.
func (req *sendRequest) addresses() error {
	in := req.in
	var err error
	if in.To != nil {
		switch req.channel {
		case "email":
			req.to, err = contact.NormalizeEmail(*in.To)
		case "whatsapp":
			// A phone, or the business-scoped user id of a customer whose
			// phone WhatsApp does not share.
			if req.to = strings.TrimSpace(*in.To); !channels.IsWhatsAppUserID(req.to) {
				req.to, err = contact.NormalizePhone(*in.To)
			}
		case "instagram":
			if req.to = strings.TrimSpace(*in.To); req.to == "" {
				err = apierr.New(apierr.InvalidRequest, "to must be the customer's instagram_user_id.")
			}
		}
		if err != nil {
			return err
		}
	}
	if from := nonBlank(in.From); from != nil {
		if req.from, err = contact.NormalizeEmail(*from); err != nil {
			return err
		}
	}
	for _, c := range in.Cc {
		addr, err := contact.NormalizeEmail(c)
		if err != nil {
			return err
		}
		req.cc = append(req.cc, addr)
	}
	return nil
}

// attachments checks each attachment's form: invalid_attachment.
func (req *sendRequest) attachments() error {
	for i, att := range req.in.Attachments {
		if att == nil {
			return apierr.New(apierr.InvalidAttachment, "attachments[%d] is empty; give file_id, or filename with content_base64.", i)
		}
		inline := att.Filename != nil || att.ContentBase64 != nil
		switch {
		case att.FileID != nil && (inline || att.ContentType != nil):
			return apierr.New(apierr.InvalidAttachment, "attachments[%d] gives file_id and inline content; give one.", i)
		case att.FileID != nil:
			if strings.TrimSpace(*att.FileID) == "" {
				return apierr.New(apierr.InvalidAttachment, "attachments[%d].file_id is empty.", i)
			}
			req.files = append(req.files, attachmentRequest{fileID: *att.FileID})
			continue
		case att.Filename == nil || att.ContentBase64 == nil:
			return apierr.New(apierr.InvalidAttachment, "attachments[%d] needs file_id, or filename with content_base64.", i)
		}
		name, ok := files.CleanFilename(*att.Filename)
		if !ok {
			return apierr.New(apierr.InvalidAttachment, "attachments[%d].filename must be a file name of 1 to 255 characters.", i)
		}
		content, err := files.DecodeBase64(*att.ContentBase64)
		if err != nil {
			return apierr.New(apierr.InvalidAttachment, "attachments[%d].content_base64 is not base64.", i)
		}
		req.files = append(req.files, attachmentRequest{meta: files.Meta{Filename: name}, content: content, declared: att.ContentType})
	}
	return nil
}

// fieldsFit refuses fields that the channel (or, for a reply, the
// conversation) does not take: invalid_request.
func fieldsFit(req *sendRequest, conv *repo.Conversation) error {
	in, ch := req.in, req.channel
	onlyOn := func(field, channel string) error {
		return apierr.New(apierr.InvalidRequest, "%s applies to %s messages only, not %s.", field, channel, ch)
	}
	switch {
	case in.Template != nil && ch != "whatsapp":
		return onlyOn("template", "whatsapp")
	case in.Template != nil && (req.text != nil || len(in.Attachments) > 0):
		return apierr.New(apierr.InvalidRequest, "A template message carries no text or attachments of its own; put values in template.parameters.")
	case in.WhatsappAccountID != nil && ch != "whatsapp":
		return onlyOn("whatsapp_account_id", "whatsapp")
	case conv != nil && in.WhatsappAccountID != nil && *in.WhatsappAccountID != conv.AccountID:
		return apierr.New(apierr.InvalidRequest, "Conversation %s is on WhatsApp number %s, not %s.", conv.ID, conv.AccountID, *in.WhatsappAccountID)
	case ch != "email" && in.HTML != nil:
		return onlyOn("html", "email")
	case ch != "email" && in.Subject != nil:
		return onlyOn("subject", "email")
	case ch != "email" && in.From != nil:
		return onlyOn("from", "email")
	case ch != "email" && in.Cc != nil:
		return onlyOn("cc", "email")
	case in.ReplyAs != nil && (conv == nil || ch != "instagram" || !conv.IsComment):
		return apierr.New(apierr.InvalidRequest, "reply_as applies to replies in Instagram comment conversations only.")
	}
	return richFit(req, conv)
}

// reachableNumbers lists the connected WhatsApp numbers the key reaches. With
// several and none named, the caller must say which.
func (s *Service) reachableNumbers(ctx context.Context, a *auth.Actor, named *string) ([]repo.Account, error) {
	accounts, err := s.Store.Accounts(ctx, a.Scope(), "whatsapp")
	if err != nil {
		return nil, err
	}
	var numbers []repo.Account
	for _, acc := range accounts {
		if acc.Status == "connected" {
			numbers = append(numbers, acc)
		}
	}
	if named == nil && len(numbers) > 1 {
		return nil, apierr.New(apierr.WhatsappAccountRequired, "This key reaches several WhatsApp numbers; say which with whatsapp_account_id.")
	}
	return numbers, nil
}
