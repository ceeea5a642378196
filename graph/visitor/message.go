package visitor

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/graph/inbound"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/repo"
)

// Conversation is a website chat as its visitor sees it: no tags, mode or
// assignment, which are the business's own.
type Conversation struct {
	ID              string          `json:"id"`
	Status          string          `json:"status"`
	RatingRequested bool            `json:"rating_requested"`
	Rated           bool            `json:"rated"`
	CreatedAt       model.Timestamp `json:"created_at"`
}

func conversationView(id, status string, rated bool, at time.Time) *Conversation {
	return &Conversation{ID: id, Status: status, RatingRequested: status == "closed" && !rated, Rated: rated,
		CreatedAt: model.NewTimestamp(at)}
}

// Message is a message as its visitor sees it.
type Message struct {
	ID             string          `json:"id"`
	ConversationID string          `json:"conversation_id"`
	Direction      string          `json:"direction"`
	Sender         Sender          `json:"sender"`
	Type           string          `json:"type"`
	Text           *string         `json:"text"`
	Attachments    []Attachment    `json:"attachments"`
	Status         string          `json:"status"`
	CreatedAt      model.Timestamp `json:"created_at"`
}

// Sender says who wrote a message: visitor, api, agent or ai.
type Sender struct {
	Type string  `json:"type"`
	Name *string `json:"name"`
}

// Attachment is a file of a message with a signed link.
type Attachment struct {
	Filename    string `json:"filename"`
	ContentType string `json:"content_type"`
	Size        int    `json:"size"`
	URL         string `json:"url"`
}

// message is the visitor's view of a stored message.
func (svc *Service) message(m *repo.Message) *Message {
	out := &Message{ID: m.ID, ConversationID: m.ConversationID, Direction: m.Direction,
		Sender: Sender{Type: m.SenderType, Name: m.SenderName}, Type: m.Type, Text: m.Text,
		Attachments: []Attachment{}, Status: m.Status, CreatedAt: model.NewTimestamp(m.CreatedAt)}
	if len(m.Attachments) == 0 {
		return out
	}
	var atts []model.Attachment
	if err := json.Unmarshal(m.Attachments, &atts); err != nil {
		slog.Error("visitor: stored attachments do not decode", "message_id", m.ID, "err", err)
		return out
	}
	for _, a := range atts {
		link := ""
		if svc.Files != nil {
			link = svc.Files.URL(a.ID)
		}
		out.Attachments = append(out.Attachments, Attachment{Filename: a.Filename, ContentType: a.ContentType, Size: a.Size, URL: link})
	}
	return out
}

// MessageView is the visitor's view of a stored message (a *Message), as
// the widget hub pushes it: JSON it does not read.
func (svc *Service) MessageView(m *repo.Message) any { return svc.message(m) }

// CheckText refuses an empty visitor message or one over MaxText characters.
func CheckText(text string) error {
	if strings.TrimSpace(text) == "" {
		return apierr.New(apierr.TextRequired, "text is required.")
	}
	if n := len([]rune(text)); n > MaxText {
		return apierr.New(apierr.InvalidRequest, "text is %d characters; at most %d are taken.", n, MaxText)
	}
	return nil
}

// Send is POST /widget/v1/messages: the visitor's message becomes a
// message.received (sender visitor) in the open chat, or in a new one when
// none is open.
func (svc *Service) Send(ctx context.Context, v *repo.Visitor, text string) (*Message, error) {
	if err := CheckText(text); err != nil {
		return nil, err
	}
	if v.ContactID == "" {
		if err := svc.giveContact(ctx, v); err != nil {
			return nil, err
		}
	}
	s := scope(v.WorkspaceID)
	ct, err := svc.Store.Contact(ctx, s, v.ContactID)
	if err != nil {
		return nil, err
	}
	if ct.ExternalID == nil {
		return nil, apierr.New(apierr.InvalidVisitorToken, "This visitor's contact no longer exists; start a new session.")
	}
	website, err := svc.Store.Account(ctx, v.WorkspaceID, "website", v.WebsiteID)
	if err != nil {
		return nil, err
	}
	// The visitor's message joins the open chat or starts one (a closed
	// website chat stays closed); it is live data.
	res, err := svc.Inbound.Receive(ctx, s, website, inbound.Message{Channel: "website", From: *ct.ExternalID, Text: &text})
	if err != nil {
		return nil, err
	}
	m := res.Message
	return &Message{ID: m.ID, ConversationID: m.ConversationID, Direction: m.Direction,
		Sender: Sender{Type: m.Sender.Type, Name: m.Sender.Name}, Type: m.Type, Text: m.Text,
		Attachments: []Attachment{}, Status: m.Status, CreatedAt: m.CreatedAt}, nil
}

// RatingInput is the body of POST /widget/v1/rating.
type RatingInput struct {
	ConversationID string  `json:"conversation_id"`
	Score          *int    `json:"score"`
	Comment        *string `json:"comment"`
}

// Rating is a stored rating.
type Rating struct {
	ConversationID string          `json:"conversation_id"`
	Score          int             `json:"score"`
	Comment        string          `json:"comment"`
	CreatedAt      model.Timestamp `json:"created_at"`
}

// Rate is POST /widget/v1/rating: once per chat, 1 to 5, only after it closed.
func (svc *Service) Rate(ctx context.Context, v *repo.Visitor, in RatingInput) (*Rating, error) {
	if in.Score == nil || *in.Score < 1 || *in.Score > 5 {
		return nil, apierr.New(apierr.InvalidRequest, "score must be a whole number from 1 to 5.")
	}
	comment := strings.TrimSpace(deref(in.Comment))
	if len([]rune(comment)) > MaxText {
		return nil, apierr.New(apierr.InvalidRequest, "comment is longer than %d characters.", MaxText)
	}
	conv, err := svc.chat(ctx, v, in.ConversationID)
	if err != nil {
		return nil, err
	}
	if conv.Status != "closed" {
		return nil, apierr.New(apierr.ConversationNotClosed, "Chat %s is still open; it can be rated once closed.", conv.ID)
	}
	rating := &repo.Rating{ConversationID: conv.ID, WorkspaceID: v.WorkspaceID, VisitorID: v.ID, Score: *in.Score,
		Comment: comment, CreatedAt: svc.Clock.Now()}
	err = svc.Store.InTx(ctx, func(q repo.Queries) error { return q.InsertRating(ctx, rating) })
	var conflict *repo.ConflictError
	if errors.As(err, &conflict) {
		return nil, apierr.New(apierr.AlreadyRated, "Chat %s is already rated.", conv.ID)
	}
	if err != nil {
		return nil, err
	}
	return &Rating{ConversationID: conv.ID, Score: rating.Score, Comment: comment, CreatedAt: model.NewTimestamp(rating.CreatedAt)}, nil
}

// chat is a website chat of the visitor's contact on the visitor's website;
// any other id is conversation_not_found.
func (svc *Service) chat(ctx context.Context, v *repo.Visitor, id string) (*repo.Conversation, error) {
	notFound := apierr.New(apierr.ConversationNotFound, "No chat %q of this visitor.", id)
	if id == "" {
		return nil, apierr.New(apierr.InvalidRequest, "conversation_id is required.")
	}
	conv, err := svc.Store.Conversation(ctx, scope(v.WorkspaceID), id)
	if errors.Is(err, repo.ErrNotFound) {
		return nil, notFound
	}
	if err != nil {
		return nil, err
	}
	if conv.Channel != "website" || conv.WebsiteID != v.WebsiteID || conv.ContactID == nil || *conv.ContactID != v.ContactID {
		return nil, notFound
	}
	return conv, nil
}
