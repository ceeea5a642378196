// Package send is the send pipeline: the field rules and channel rules in
// their documented order (docs/api.md, Sending), quota, template rendering,
// the choice of adapter (the sandbox for test keys, the channel's provider
// for live ones), and
// the one place where a provider's refusal becomes an API error.
package send

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/microcosm-cc/bluemonday"
	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/conversation"
	"github.com/msgsvc/msgsvc/graph/cursor"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/view"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Store is what a send reads outside its transaction; repo.Store is one.
type Store interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	InTxOptimistic(ctx context.Context, key string, fn func(repo.Queries) error) error
	Account(ctx context.Context, workspaceID, channel, id string) (*repo.Account, error)
	Accounts(ctx context.Context, s repo.Scope, channel string) ([]repo.Account, error)
	Conversation(ctx context.Context, s repo.Scope, id string) (*repo.Conversation, error)
	EmailDomains(ctx context.Context, workspaceID string) ([]repo.EmailDomain, error)
	Templates(ctx context.Context, s repo.Scope, accountIDs []string) ([]repo.Template, error)
	StaleSendingMessages(ctx context.Context, before time.Time, limit int) ([]repo.MessageRef, error)
}

// FileLinks signs links to stored files; files.Service is one.
type FileLinks interface {
	URL(id string) string
	SignAttachments(msgs ...*model.Message)
}

// Service sends messages.
type Service struct {
	Store  Store
	Clock  clock.Clock
	Events event.Recorder
	Files  FileLinks
	// Adapters send live messages, one per channel; a channel without one
	// refuses live sends (test keys always use the sandbox adapter).
	Adapters map[string]channels.Adapter
	// Credentials opens provider credentials of live sends; nil sends
	// without (tests of channels that need none).
	Credentials CredentialStore
	// Refresher refreshes a number's templates after a 132001; may be nil.
	Refresher TemplateRefresher
	// ProviderTimeout bounds one provider call (MSGSVC_PROVIDER_TIMEOUT).
	ProviderTimeout time.Duration
	// Email completes outbound email headers; nil sets only the domain.
	Email EmailEnvelope
	// SenderDNS lists the DNS records of sending domains; nil lists none.
	SenderDNS SenderDNS
	// Pacer spaces live WhatsApp calls of one number; nil paces nothing.
	Pacer *Pacer
	// UnknownAfter is how long a message whose provider call got no answer
	// waits for the provider's status before it is failed as
	// provider_unknown (MSGSVC_PROVIDER_UNKNOWN_AFTER; DefaultUnknownAfter
	// when 0).
	UnknownAfter time.Duration
	// Cursors signs the positions of the batches' list (MessageBatches).
	Cursors cursor.Signer
}

// htmlPolicy makes email HTML safe to show in a browser; html_raw keeps the
// body as given.
var htmlPolicy = bluemonday.UGCPolicy()

func (s *Service) run(ctx context.Context, a *auth.Actor, in Request, marketing bool, sender *Sender) (*model.Message, error) {
	req, err := s.sendFields(ctx, a, in.Input, marketing, in.LongKey)
	if err != nil {
		return nil, err
	}
	req.sender, req.binding = sender, in.Binding
	req.async, req.batchID = in.Async, in.BatchID
	res, err := s.reserve(ctx, a, req)
	if err != nil {
		return nil, err
	}
	if res.sent != nil {
		// A sandbox send is committed sent; a worker's DeliverSandbox
		// completes it from Postgres once the delay has run out, so nothing
		// needs to be told but the fan-out. A queued one (queue.go) is
		// committed queued for the pacer.
		s.Events.CommittedSends(context.WithoutCancel(ctx))
		return res.sent, nil
	}
	// Reserved: from here on the message is settled whatever the client
	// does, and no transaction or lock is held while the provider answers.
	// The reserve recorded no event: what it created is announced with the
	// message's settle, and removed with its release.
	ctx = context.WithoutCancel(ctx)
	sending := *res.msg // as reserved: confirm changes res.msg
	pending := func() *model.Message {
		out := view.Message(&sending)
		s.Files.SignAttachments(out)
		return out
	}
	receipt, callErr := s.call(ctx, res.ob)
	switch {
	case callErr == nil:
		var out *model.Message
		err := s.settleRetrying(ctx, "confirm", res.msg.ID, true, func(ctx context.Context) (err error) {
			out, err = s.confirm(ctx, res, receipt)
			return err
		})
		if err != nil && !isDecision(err) {
			// The provider took the message: it is never answered as
			// refused. It stays sending until the background's confirm,
			// a status or the sweep settles it.
			return pending(), nil
		}
		if err == nil {
			s.Events.CommittedSends(ctx)
		}
		return out, err
	case channels.OutcomeUnknown(callErr):
		return s.unknown(ctx, res, pending(), callErr), nil
	}
	return nil, s.release(ctx, res, callErr)
}

// prepare builds the message as stored (status sending) and as its adapter
// needs it, storing its inline attachments.
func (s *Service) prepare(ctx context.Context, q repo.Queries, a *auth.Actor, req *sendRequest, t *sendTarget, content *sendContent, msgID string) (*repo.Message, *channels.Message, error) {
	now := s.Clock.Now()
	msg := &repo.Message{ID: msgID, WorkspaceID: a.WorkspaceID, Livemode: a.Livemode, Channel: req.channel,
		Direction: "outbound", SenderType: "api", Type: "text", Text: req.text, Status: "sending", CreatedAt: now}
	if req.sender != nil {
		msg.SenderType, msg.SenderName = req.sender.Type, req.sender.Name
	}
	if content.template != nil {
		msg.Type, msg.Text = "template", &content.templateText
	} else if req.text == nil && req.html == nil {
		msg.Type = "attachment"
	}
	if req.html != nil {
		safe := htmlPolicy.Sanitize(*req.html)
		msg.HTML, msg.HTMLRaw = &safe, req.html
	}
	to := recipient(req, t)
	ob := &channels.Message{ID: msgID, Livemode: a.Livemode, Channel: req.channel, Account: accountOf(t.acc), To: to,
		Text: msg.Text, HTML: msg.HTML, ReplyAs: req.replyAs}
	if t.commentID != "" {
		ob.CommentID, ob.LiveMediaID = t.commentID, t.liveMediaID
	}
	if req.humanAgentTag {
		ob.Tag = HumanAgentTag
	}
	if content.template != nil {
		ob.Template = &channels.Template{Name: content.template.Name, Language: content.template.Language,
			Category: content.template.Category, TemplateParameters: content.templateParams, Marketing: req.marketing}
	}
	if req.channel == "email" {
		subject := req.subject
		if subject == "" {
			subject = replySubject(t.conv)
		}
		ob.Email = &channels.Email{From: req.from, To: []string{to}, Subject: subject, Cc: req.cc,
			AutoReplied: msg.SenderType == "ai"}
		if err := s.emailEnvelope(ctx, q, a, t, ob.Email); err != nil {
			return nil, nil, err
		}
		cc := req.cc
		if cc == nil {
			cc = []string{}
		}
		var err error
		if msg.Email, err = json.Marshal(model.EmailHeaders{From: req.from, To: []string{to}, Cc: cc,
			InReplyTo: nonEmptyPtr(ob.Email.InReplyTo), References: append([]string{}, ob.Email.References...)}); err != nil {
			return nil, nil, fmt.Errorf("send: email headers: %w", err)
		}
	}
	if err := richOutbound(ctx, q, a.Scope(), req, t.conv, msg, ob); err != nil {
		return nil, nil, err
	}
	if err := s.attach(ctx, q, a, req, t, msg, ob); err != nil {
		return nil, nil, err
	}
	if err := emailFiles(ctx, q, a, ob); err != nil {
		return nil, nil, err
	}
	return msg, ob, nil
}

// store writes a reserved message, with the conversation it starts. A
// sandbox send records contact.created and conversation.created in that
// order (message.sent follows); a live one (deferred) keeps what it created
// in send_creations instead, announced when its message is settled
// (AnnounceCreations) or removed when the provider refuses it.
func (s *Service) store(ctx context.Context, q repo.Queries, scope repo.Scope, req *sendRequest, t *sendTarget, msg *repo.Message, deferred bool) error {
	now := msg.CreatedAt
	creations := &repo.SendCreations{MessageID: msg.ID, WorkspaceID: scope.WorkspaceID, Livemode: scope.Livemode}
	if t.newContact && deferred {
		creations.ContactID = &t.contact.ID
	} else if t.newContact {
		if err := s.Events.Record(ctx, q, scope, event.ContactCreated, nil, view.Contact(t.contact)); err != nil {
			return err
		}
	}
	created := t.conv == nil
	if created {
		var err error
		if t.conv, err = conversation.Start(ctx, q, scope, t.acc, t.contact, false, now); err != nil {
			return fmt.Errorf("send: %w", err)
		}
		if req.channel == "email" {
			t.conv.Subject = &req.subject
		}
	}
	msg.ConversationID = t.conv.ID
	if err := conversation.Save(ctx, q, scope, t.conv, t.contact, created, now); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	if err := q.InsertMessage(ctx, msg); err != nil {
		return fmt.Errorf("send: insert message: %w", err)
	}
	if t.comment != nil {
		if err := q.InsertPrivateReply(ctx, t.comment.ID, msg.ID, now); err != nil {
			if conflict := (*repo.ConflictError)(nil); errors.As(err, &conflict) {
				return apierr.New(apierr.PrivateReplyUsed, "The comment already has its one private reply.")
			}
			return err
		}
	}
	switch {
	case created && deferred:
		creations.ConversationID = &t.conv.ID
	case created:
		convOut := view.Conversation(t.conv)
		return s.Events.Record(ctx, q, scope, event.ConversationCreated, convOut, convOut)
	}
	if creations.ContactID == nil && creations.ConversationID == nil {
		return nil
	}
	return q.InsertSendCreations(ctx, creations)
}

// accountOf is the sending account as an adapter needs it.
func accountOf(acc *repo.Account) channels.Account {
	out := channels.Account{ID: acc.ID, Channel: acc.Channel, Address: acc.Address}
	switch acc.Channel {
	case "whatsapp":
		out.Address = acc.PhoneNumber
	case "instagram":
		out.Address = acc.Username
	case "website":
		out.Address = acc.WebsiteID
	}
	return out
}

// Period is the UTC month a time falls in, as usage reports it.
func Period(t time.Time) string { return t.UTC().Format("2006-01") }

// attach stores the inline attachments of a message and lists them all, on
// the stored message and, with signed links, on the outbound one.
func (s *Service) attach(ctx context.Context, q repo.Queries, a *auth.Actor, req *sendRequest, t *sendTarget, msg *repo.Message, ob *channels.Message) error {
	now, msgID := msg.CreatedAt, msg.ID
	var atts []*model.Attachment
	for _, f := range req.files {
		id, size := f.fileID, len(f.content)
		if id == "" {
			id = repo.NewID("file_", now)
			file := &repo.File{ID: id, WorkspaceID: a.WorkspaceID, Livemode: a.Livemode, Filename: f.meta.Filename,
				ContentType: f.meta.ContentType, Size: size, Content: f.content, MessageID: &msgID, CreatedAt: now}
			if err := q.InsertFile(ctx, file); err != nil {
				return fmt.Errorf("send: store attachment: %w", err)
			}
		} else {
			size = t.files[id].Size
		}
		atts = append(atts, &model.Attachment{ID: id, Filename: f.meta.Filename, ContentType: f.meta.ContentType, Size: size})
		ob.Attachments = append(ob.Attachments, channels.File{ID: id, Filename: f.meta.Filename,
			ContentType: f.meta.ContentType, Size: size, URL: s.Files.URL(id)})
	}
	if atts != nil {
		var err error
		if msg.Attachments, err = json.Marshal(atts); err != nil {
			return fmt.Errorf("send: attachments: %w", err)
		}
	}
	return nil

}
