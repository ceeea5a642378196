package instagram

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/msgsvc/msgsvc/channels"
	igch "github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/repo"
)

// Store is what DM processing reads and writes; repo.Store is one.
type Store interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
	ProviderMessageOn(ctx context.Context, s repo.Scope, accountID, channel, providerID string) (*repo.ProviderMessage, error)
	InstagramSending(ctx context.Context, s repo.Scope, accountID, customerID string) (bool, error)
}

// Downloader fetches DM attachments; the channels/instagram adapter is one.
type Downloader interface {
	DownloadAttachment(ctx context.Context, creds *channels.Credentials, kind, url string) (*igch.Attachment, error)
}

// SenderApp is sender.type of a message the account sent from the
// Instagram app (an echo that is not one of our sends).
const SenderApp = "instagram_app"

// ErrSendInFlight is an echo that may be of a send of ours not yet
// confirmed: the hook is processed again later, when its ids are stored.
var ErrSendInFlight = errors.New("instagram: an echo arrived while a send to the customer awaits its provider ids; retried later")

// HandleInstagram processes one Instagram event of an account (the
// account entry[].id routed it to, with its credentials): DMs, echoes,
// unsent messages, comments and live comments, reactions, postbacks,
// referrals, edits, reads (rich.go), and events of other kinds as
// unsupported messages.
func (s *Service) HandleInstagram(ctx context.Context, acc *repo.Account, creds *channels.Credentials, ev meta.Event) error {
	scope := repo.Scope{WorkspaceID: acc.WorkspaceID, Livemode: true}
	switch e := ev.(type) {
	case *meta.InstagramComment:
		if igch.Owns(creds, e.FromID) {
			return nil // our own public reply, on either of the account's ids
		}
		_, err := s.Comment(ctx, scope, acc, e)
		return err
	case *meta.InstagramMessage:
		switch {
		case e.MID == "":
			slog.Info("instagram: DM without mid ignored", "account", acc.ID)
			return nil
		case e.IsDeleted:
			return s.Unsent(ctx, scope, acc, e.MID)
		case e.IsEcho, igch.Owns(creds, e.SenderID):
			e.IsEcho = true
			return s.Echo(ctx, scope, acc, creds, e)
		}
		return s.DM(ctx, scope, acc, creds, e)
	case *meta.InstagramReaction:
		if igch.Owns(creds, e.SenderID) {
			return nil // our own reaction (a send of ours, or from the app)
		}
		return s.Reaction(ctx, scope, acc, e)
	case *meta.InstagramPostback:
		return s.Postback(ctx, scope, acc, e)
	case *meta.InstagramReferral:
		return s.Referral(ctx, scope, acc, e)
	case *meta.InstagramEdit:
		return s.Edit(ctx, scope, acc, e)
	case *meta.InstagramRead:
		return s.Read(ctx, scope, acc, e, e.Timestamp)
	case *meta.InstagramOther:
		if igch.Owns(creds, e.SenderID) {
			slog.Info("instagram: the account's own messaging event of a kind not modelled; ignored", "account", acc.ID, "kind", e.Kind)
			return nil
		}
		return s.Other(ctx, scope, acc, e)
	}
	slog.Info("instagram: event not processed", "account", acc.ID)
	return nil
}

// errDuplicate ends the transaction of a DM whose mid is already stored.
var errDuplicate = errors.New("instagram: the DM was already received")

// DM takes a customer's DM in as message.received in the customer's direct
// conversation on the account: text, attachments downloaded as files (one
// that cannot be fetched leaves a note instead), the window's
// last_inbound_at the DM's own time. A mid received before (Meta retries a
// webhook) changes nothing.
func (s *Service) DM(ctx context.Context, scope repo.Scope, acc *repo.Account, creds *channels.Credentials, m *meta.InstagramMessage) error {
	if m.SenderID == "" {
		return fmt.Errorf("instagram: DM %s without a sender", m.MID)
	}
	if known, err := s.known(ctx, scope, acc, m.MID); known || err != nil {
		return err
	}
	in := s.content(ctx, acc, creds, m)
	in.From, in.At = m.SenderID, m.Timestamp
	in.Stored = storedOnce(m.MID, "received")
	_, err := s.Inbound.Receive(ctx, scope, acc, in)
	if errors.Is(err, errDuplicate) {
		return nil
	}
	return err
}

// Echo handles Meta's copy of a message the account sent: one of our sends
// (its mid is stored) changes nothing; one sent from the Instagram app is
// recorded as outbound, sender instagram_app, with message.sent. While a
// send of ours to the customer is between reserve and confirm, the echo
// may be of it: ErrSendInFlight has the hook processed again later.
func (s *Service) Echo(ctx context.Context, scope repo.Scope, acc *repo.Account, creds *channels.Credentials, m *meta.InstagramMessage) error {
	customer := m.CustomerID()
	if customer == "" {
		return fmt.Errorf("instagram: echo %s without a recipient", m.MID)
	}
	if known, err := s.known(ctx, scope, acc, m.MID); known || err != nil {
		return err
	}
	sending, err := s.Store.InstagramSending(ctx, scope, acc.ID, customer)
	if err != nil {
		return err
	}
	if sending {
		return ErrSendInFlight
	}
	// A confirm may have committed between the first look and the check.
	if known, err := s.known(ctx, scope, acc, m.MID); known || err != nil {
		return err
	}
	in := s.content(ctx, acc, creds, m)
	in.From, in.At = customer, m.Timestamp
	in.Echo = &inbound.Echo{SenderType: SenderApp, ProviderMessageID: m.MID}
	in.Stored = storedOnce(m.MID, "sent")
	_, err = s.Inbound.Receive(ctx, scope, acc, in)
	if errors.Is(err, errDuplicate) {
		return nil
	}
	return err
}

// Unsent marks the message of the account a customer unsent (is_deleted)
// deleted: true and emits message.status, once; a mid of no message of the
// account is ignored.
func (s *Service) Unsent(ctx context.Context, scope repo.Scope, acc *repo.Account, mid string) error {
	return s.update(ctx, scope, acc, mid, func(q repo.Queries, scope repo.Scope, msg *repo.Message) (bool, error) {
		changed, err := q.SetMessageDeleted(ctx, scope.WorkspaceID, msg.ID)
		if changed {
			msg.Deleted = true
		}
		return changed, err
	})
}

// known says whether a mid is already one of the account's messages.
func (s *Service) known(ctx context.Context, scope repo.Scope, acc *repo.Account, mid string) (bool, error) {
	_, err := s.Store.ProviderMessageOn(ctx, scope, acc.ID, "instagram", mid)
	if errors.Is(err, repo.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// storedOnce records the mid of a stored message; a mid stored meanwhile
// (a concurrent copy of the webhook) rolls the second one back.
func storedOnce(mid, status string) func(ctx context.Context, q repo.Queries, msg *repo.Message) error {
	return func(ctx context.Context, q repo.Queries, msg *repo.Message) error {
		fresh, err := q.InsertProviderMessage(ctx, &repo.ProviderMessage{Channel: "instagram", ProviderID: mid,
			MessageID: msg.ID, Status: status})
		if err == nil && !fresh {
			err = errDuplicate
		}
		return err
	}
}

// content is a DM's text, type, typed fields (rich.go) and files: image,
// video, audio and file attachments downloaded (one that cannot be fetched
// is kept as a failed file with its type); links to Instagram content (a
// shared post, a story, a reel) are typed fields, not text.
func (s *Service) content(ctx context.Context, acc *repo.Account, creds *channels.Credentials, m *meta.InstagramMessage) inbound.Message {
	in := inbound.Message{Channel: "instagram"}
	in.Type, in.Rich = richDM(m)
	if m.Text != "" {
		text := m.Text
		in.Text = &text
	}
	for _, a := range m.Attachments {
		if !igch.Downloadable(a.Type) {
			continue
		}
		// A failed download keeps the attachment's link as its provider
		// media id: POST /v1/files/{id}/refetch fetches it again while it
		// lives.
		f := inbound.File{Filename: a.Type, ContentType: "application/octet-stream", ProviderMediaID: a.URL}
		if s.Media == nil {
			f.Failed = "attachment downloads are not configured"
			in.Files = append(in.Files, f)
			continue
		}
		got, err := s.Media.DownloadAttachment(ctx, creds, a.Type, a.URL)
		if err != nil {
			slog.Warn("instagram: attachment not downloaded", "account", acc.ID, "type", a.Type, "err", err)
			f.Failed = err.Error()
			in.Files = append(in.Files, f)
			continue
		}
		in.Files = append(in.Files, inbound.File{Filename: got.Filename, ContentType: got.ContentType, Content: got.Content,
			MimeType: got.ContentType})
	}
	return in
}
