package send

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/files"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Channel limits (spec Limits).
const (
	freeTextWindow    = 24 * time.Hour
	privateReplyLimit = 7 * 24 * time.Hour
)

// windowOpen says whether free text may go out: within 24 hours of the
// customer's last message.
func windowOpen(lastInbound *time.Time, now time.Time) bool {
	return lastInbound != nil && now.Before(lastInbound.Add(freeTextWindow))
}

// sendContent is what the channel rules settled: the rendered template and
// the email sender.
type sendContent struct {
	templateText   string
	template       *repo.Template
	templateParams channels.TemplateParameters
}

// marketing says whether a send is marketing: through the marketing
// endpoint, or of a MARKETING template.
func marketing(req *sendRequest, content *sendContent) bool {
	return req.marketing || content != nil && content.template != nil && content.template.Category == "MARKETING"
}

// channelRules refuses what the channel would refuse, in the documented
// order (docs/api.md, Sending); the first failing rule answers.
func (s *Service) channelRules(ctx context.Context, q repo.Queries, a *auth.Actor, req *sendRequest, t *sendTarget, messageID string) (*sendContent, error) {
	now := s.Clock.Now()
	out := &sendContent{}
	in := req.in
	if t.conv != nil && !t.conv.IntegrationReplies && req.sender == nil {
		return nil, apierr.New(apierr.IntegrationPaused, "An agent paused integration replies on conversation %s; stop retrying until conversation.updated says they resumed.", t.conv.ID)
	}
	if err := closedChatRule(req, t); err != nil {
		return nil, err
	}
	if req.channel == "whatsapp" && (t.acc == nil || (t.acc.Status != "connected" && t.acc.Status != "needs_reauth")) {
		return nil, apierr.New(apierr.NoWhatsappAccount, "This key reaches no connected WhatsApp number.")
	}
	comment := t.conv != nil && t.conv.IsComment
	if err := tagRule(req, comment); err != nil {
		return nil, err
	}
	if err := windowRule(req, comment, t.lastInbound, now); err != nil {
		return nil, err
	}
	if in.Template != nil {
		if err := s.templateRule(ctx, q, a, req, t, out); err != nil {
			return nil, err
		}
	}
	if req.channel == "email" {
		if err := s.senderRules(ctx, q, a, req, t); err != nil {
			return nil, err
		}
	}
	if err := recipientRules(req, t, out); err != nil {
		return nil, err
	}
	if req.channel == "instagram" && comment && req.replyAs == "dm" {
		if err := s.privateReplyRules(ctx, q, a, t, now); err != nil {
			return nil, err
		}
	}
	if req.channel == "instagram" && comment {
		if err := commentRule(ctx, q, a.Scope(), t); err != nil {
			return nil, err
		}
		if err := liveCommentRule(req, t); err != nil {
			return nil, err
		}
	}
	return out, s.attachmentRules(ctx, q, a, req, t, messageID)
}

// closedChatRule: a website chat takes messages only while open.
func closedChatRule(req *sendRequest, t *sendTarget) error {
	if req.channel == "website" && t.conv.Status != "open" {
		return apierr.New(apierr.ConversationClosed, "Website chat %s is closed; it accepts messages only while open.", t.conv.ID)
	}
	return nil
}

// windowRule: outside the 24-hour window WhatsApp takes approved templates
// only, and an Instagram direct message a person's reply (humanAgentRule).
func windowRule(req *sendRequest, comment bool, lastInbound *time.Time, now time.Time) error {
	if (req.channel == "whatsapp" || (req.channel == "instagram" && !comment)) && req.in.Template == nil && !windowOpen(lastInbound, now) {
		if req.channel == "whatsapp" {
			return apierr.New(apierr.WindowClosed, "Over 24 hours since the customer last wrote; send an approved template instead.")
		}
		return humanAgentRule(req, lastInbound, now)
	}
	return nil
}

// templateRule accepts approved templates only (and MARKETING ones only on
// the marketing endpoint) and renders their {{n}} parameters.
func (s *Service) templateRule(ctx context.Context, q repo.Queries, a *auth.Actor, req *sendRequest, t *sendTarget, out *sendContent) error {
	in := req.in.Template
	name, lang := strings.TrimSpace(*in.Name), strings.TrimSpace(*in.Language)
	tpl, err := q.Template(ctx, a.Scope(), t.acc.ID, name, lang)
	if err != nil && !errors.Is(err, repo.ErrNotFound) {
		return err
	}
	if tpl == nil || tpl.Status != "APPROVED" {
		return apierr.New(apierr.TemplateNotApproved, "No approved template %s (%s) on WhatsApp number %s.", name, lang, t.acc.ID)
	}
	if req.marketing && tpl.Category != "MARKETING" {
		return apierr.New(apierr.TemplateNotMarketing, "Template %s is %s; the marketing endpoint sends MARKETING templates only, send it through POST /v1/messages.", name, tpl.Category)
	}
	if req.marketing && t.acc.MarketingMessages != "ONBOARDED" {
		return apierr.New(apierr.MarketingNotOnboarded, "WhatsApp number %s is not onboarded for marketing messages.", t.acc.ID)
	}
	params, text, err := s.templateFill(ctx, q, a.Scope(), tpl, in)
	if err != nil {
		return err
	}
	out.template, out.templateParams, out.templateText = tpl, params, text
	return nil
}

// senderRules: email goes out only from a verified domain, and only from an
// address the key may use. A new thread runs on the sender's account.
func (s *Service) senderRules(ctx context.Context, q repo.Queries, a *auth.Actor, req *sendRequest, t *sendTarget) error {
	if req.from == "" {
		req.from = t.acc.Address // a reply without from answers from the thread's address
	}
	domain := req.from[strings.LastIndex(req.from, "@")+1:]
	d, err := q.EmailDomain(ctx, a.WorkspaceID, domain)
	if err != nil && !errors.Is(err, repo.ErrNotFound) {
		return err
	}
	if d == nil || !d.Verified {
		return apierr.New(apierr.SenderNotVerified, "The domain %s is not verified; email goes out only from a verified domain.", domain)
	}
	usable, err := q.Accounts(ctx, a.Scope(), "email")
	if err != nil {
		return err
	}
	for i := range usable {
		if strings.EqualFold(usable[i].Address, req.from) {
			if t.acc == nil {
				t.acc = &usable[i]
			}
			return nil
		}
	}
	return apierr.New(apierr.SenderNotFound, "%s is not an email address this key can send from; see GET /v1/email/senders.", req.from)
}

// recipientRules: suppressed and unsubscribed email addresses, opt-outs
// (templates included) and the WhatsApp marketing opt-out (marketing
// messages and MARKETING templates only).
func recipientRules(req *sendRequest, t *sendTarget, content *sendContent) error {
	c := t.contact
	newThread := t.conv == nil
	switch {
	case c == nil:
	case req.channel == "email" && len(c.EmailSuppressed) > 0 && string(c.EmailSuppressed) != "null":
		return apierr.New(apierr.RecipientSuppressed, "%s bounced permanently or reported spam; nothing more is sent to it.", deref(c.Email))
	case req.channel == "email" && newThread && c.OptOutEmail:
		return apierr.New(apierr.RecipientUnsubscribed, "%s unsubscribed; replies are allowed, new threads are not.", deref(c.Email))
	case req.channel == "whatsapp" && c.OptOutWhatsapp, req.channel == "instagram" && c.OptOutInstagram:
		return apierr.New(apierr.RecipientOptedOut, "The customer opted out of %s.", req.channel)
	case req.channel == "whatsapp" && c.MarketingOptOutWhatsapp && marketing(req, content):
		return apierr.New(apierr.RecipientOptedOut, "The customer stopped marketing messages on WhatsApp; other messages still go out.")
	}
	if req.channel == "email" && (c == nil || c.Email == nil) {
		return apierr.New(apierr.NoRecipient, "This email conversation has no customer address.")
	}
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// privateReplyRules: one private reply per comment, within 7 days of it.
func (s *Service) privateReplyRules(ctx context.Context, q repo.Queries, a *auth.Actor, t *sendTarget, now time.Time) error {
	comment, err := q.LatestInboundMessage(ctx, a.Scope(), t.conv.ID)
	if errors.Is(err, repo.ErrNotFound) {
		return apierr.New(apierr.InvalidRequest, "Conversation %s has no comment to reply to.", t.conv.ID)
	}
	if err != nil {
		return err
	}
	// A live comment's own time is when Meta says it was written; a sandbox
	// comment has only its message's.
	at := comment.CreatedAt
	provider, err := q.InstagramCommentOf(ctx, comment.ID)
	switch {
	case err == nil:
		at = provider.CreatedAt
	case !errors.Is(err, repo.ErrNotFound):
		return err
	}
	used, err := q.HasPrivateReply(ctx, comment.ID)
	if err != nil {
		return err
	}
	if err := privateReplyAllowed(at, now, used); err != nil {
		return err
	}
	t.comment = comment
	return nil
}

// privateReplyAllowed is Meta's rule of private replies (channels.md 2.4),
// kept locally: one per comment (used says it was made), and only before
// the comment written at commentAt is 7 days old.
func privateReplyAllowed(commentAt, now time.Time, used bool) error {
	if !now.Before(commentAt.Add(privateReplyLimit)) {
		return apierr.New(apierr.PrivateReplyExpired, "The comment is over 7 days old; a private reply is no longer possible.")
	}
	if used {
		return apierr.New(apierr.PrivateReplyUsed, "The comment already has its one private reply.")
	}
	return nil
}

// attachmentRules: allowed types and sizes, Instagram media only, each
// uploaded file on one message, 10 MB per message. Uploaded files are
// claimed for the message here, so a concurrent send of the same file loses.
func (s *Service) attachmentRules(ctx context.Context, q repo.Queries, a *auth.Actor, req *sendRequest, t *sendTarget, messageID string) error {
	total := 0
	for i := range req.files {
		f := &req.files[i]
		size, head := len(f.content), f.content
		if f.fileID != "" {
			stored := t.files[f.fileID]
			f.meta = files.Meta{Filename: stored.Filename, ContentType: stored.ContentType}
			size, head = stored.Size, nil
		} else {
			ctype, ok := files.ContentTypeOf(f.declared, f.meta.Filename, f.content)
			if !ok {
				return apierr.New(apierr.FileRejected, "%s: content_type %q is not a media type.", f.meta.Filename, *f.declared)
			}
			f.meta.ContentType = ctype
			if err := files.Rejected(f.meta, size, head); err != nil {
				return err
			}
		}
		if req.channel == "instagram" && (req.replyAs == "comment" || (t.conv != nil && t.conv.IsComment && req.replyAs == "")) {
			return apierr.New(apierr.UnsupportedAttachment, "A public comment reply takes text only.")
		}
		if req.channel == "instagram" && !isMedia(f.meta.ContentType) {
			return apierr.New(apierr.UnsupportedAttachment, "Instagram takes images, video and audio only, not %s.", f.meta.ContentType)
		}
		if err := attachmentFits(req.channel, fmt.Sprintf("attachments[%d]", i), f.meta.ContentType, size, f.content); err != nil {
			return err
		}
		if f.fileID != "" {
			claimed, err := q.AttachFile(ctx, a.Scope(), f.fileID, messageID)
			if err != nil {
				return err
			}
			if !claimed {
				return apierr.New(apierr.FileAlreadyUsed, "File %s is already attached to a message; upload it again.", f.fileID)
			}
		}
		total += size
	}
	if total > files.MaxFileSize {
		return apierr.New(apierr.AttachmentsTooLarge, "The attachments add up to %d bytes; a message takes at most 10 MB.", total)
	}
	return nil
}

func isMedia(contentType string) bool {
	for _, p := range []string{"image/", "video/", "audio/"} {
		if strings.HasPrefix(contentType, p) {
			return true
		}
	}
	return false
}
