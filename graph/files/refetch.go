package files

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// MediaSource downloads provider media again: the media id of a file of a
// message on a channel account (WhatsApp's media endpoint).
type MediaSource func(ctx context.Context, s repo.Scope, channel, accountID, mediaID, sha256 string) (contentType string, content []byte, err error)

// TxStore runs a transaction; repo.Store is one.
type TxStore interface {
	InTx(ctx context.Context, fn func(repo.Queries) error) error
}

// Refetch fetches the bytes of an inbound provider file again (POST
// /v1/files/{id}/refetch): a file whose download failed gets its bytes and
// its attachment status "stored"; one already stored is answered as it is.
// A file that is no provider media is refused; a download that fails again
// answers 503 channel_unavailable and leaves the file failed, with the new
// error (a refusal of the source's own, such as media_expired, answers as
// it is).
func (s *Service) Refetch(ctx context.Context, store TxStore, src MediaSource, id string) (*model.Attachment, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	scope := a.Scope()
	var (
		f    *repo.File
		msg  *repo.Message
		conv *repo.Conversation
	)
	err = store.InTx(ctx, func(q repo.Queries) error {
		if f, err = q.FileInScope(ctx, scope, id); err != nil {
			return err
		}
		if f.MessageID == nil || f.ProviderMediaID == nil {
			return apierr.New(apierr.InvalidRequest, "File %s is not media a provider sent; there is nothing to fetch again.", id)
		}
		conv, msg, err = q.LockConversationThenMessage(ctx, scope, *f.MessageID)
		return err
	})
	if errors.Is(err, repo.ErrNotFound) {
		return nil, apierr.New(apierr.FileNotFound, "No file %s.", id)
	}
	if err != nil {
		return nil, err
	}
	if err := a.CheckChannel(msg.Channel); err != nil {
		return nil, err
	}
	_, att, err := attachmentOf(msg, id)
	if err != nil || att.Status != "failed" {
		s.sign(att)
		return att, err
	}
	ctype, content, ferr := src(ctx, scope, msg.Channel, conv.AccountID, *f.ProviderMediaID, att.SHA256)
	if ferr == nil && len(content) == 0 {
		ferr = errors.New("the provider returned no bytes")
	}
	if ctype == "" {
		ctype = f.ContentType
	}
	if att, err = refetched(ctx, store, scope, msg.ID, id, ctype, content, ferr); err != nil {
		return nil, err
	}
	if e, ok := apierr.As(ferr); ok && att.Status == "failed" {
		return nil, e
	}
	if att.Status == "failed" {
		return nil, apierr.New(apierr.ChannelUnavailable, "The provider did not return the media again: %v.", ferr)
	}
	s.sign(att)
	return att, nil
}

// refetched stores the outcome of a download (ferr nil: its bytes) in the
// file and in its entry of the message's attachments, read again with the
// message locked so that a refetch that ran meanwhile keeps its result: an
// attachment another refetch stored stays stored. It returns the
// attachment as stored.
func refetched(ctx context.Context, store TxStore, s repo.Scope, msgID, id, ctype string, content []byte, ferr error) (*model.Attachment, error) {
	var att *model.Attachment
	err := store.InTx(ctx, func(q repo.Queries) error {
		_, msg, err := q.LockConversationThenMessage(ctx, s, msgID)
		if err != nil {
			return err
		}
		var atts []*model.Attachment
		if atts, att, err = attachmentOf(msg, id); err != nil || att.Status != "failed" {
			return err
		}
		if ferr != nil {
			att.Error = ferr.Error()
		} else {
			att.Status, att.Error, att.Size, att.ContentType = "stored", "", len(content), ctype
			if err := q.SetFileContent(ctx, s, id, ctype, content); err != nil {
				return err
			}
		}
		raw, err := json.Marshal(atts)
		if err != nil {
			return fmt.Errorf("files: attachments: %w", err)
		}
		return q.SetMessageAttachments(ctx, s, msgID, raw)
	})
	return att, err
}

// attachmentOf is a message's attachments and the one with the file's id.
func attachmentOf(msg *repo.Message, id string) ([]*model.Attachment, *model.Attachment, error) {
	var atts []*model.Attachment
	if err := json.Unmarshal(msg.Attachments, &atts); err != nil {
		return nil, nil, fmt.Errorf("files: attachments of %s: %w", msg.ID, err)
	}
	for _, a := range atts {
		if a.ID == id {
			return atts, a, nil
		}
	}
	return nil, nil, apierr.New(apierr.FileNotFound, "No file %s on its message.", id)
}

// sign sets an attachment's signed link.
func (s *Service) sign(a *model.Attachment) {
	if a != nil {
		a.URL = s.URL(a.ID)
	}
}
