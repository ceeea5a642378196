// Package instagram is the Instagram messaging adapter (docs/instagram.md)
// for both logins: Instagram Login (node ig_user_id
// on MSGSVC_INSTAGRAM_GRAPH_URL) and Facebook Login (node page_id on
// MSGSVC_META_GRAPH_URL). It sends DMs (the text, then each attachment as a
// request of its own with the signed link as payload URL), public comment
// replies (POST /{comment_id}/replies on the login's host) and private
// replies (recipient.comment_id).
package instagram

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Logins of an Instagram account (provider.login).
const (
	LoginInstagram = "instagram"
	LoginFacebook  = "facebook"
)

// Adapter sends Instagram messages through the host of each account's
// login.
type Adapter struct {
	// Graph is the Meta host (Facebook Login).
	Graph *meta.Client
	// Instagram is the Instagram host (Instagram Login).
	Instagram *meta.Client
}

// New is an adapter on cfg's two hosts.
func New(cfg meta.Config) *Adapter { return &Adapter{Graph: cfg.Graph(), Instagram: cfg.Instagram()} }

var _ channels.Adapter = (*Adapter)(nil)

// sizeCap is Instagram's limit of each attachment type (channels.md 2.2).
var sizeCap = map[string]int{"image": 8 << 20, "video": 25 << 20, "audio": 25 << 20}

// Kind is the attachment type of a file: image, video or audio; "" for any
// other (Instagram takes no other from us).
func Kind(contentType string) string {
	ct := strings.ToLower(strings.TrimSpace(strings.Split(contentType, ";")[0]))
	for _, k := range []string{"image", "video", "audio"} {
		if strings.HasPrefix(ct, k+"/") {
			return k
		}
	}
	return ""
}

// node is the host, node id and token of an account's login.
type node struct {
	client *meta.Client
	id     string
	token  string
}

// node is where an account's messages go: the Instagram host and
// ig_user_id for Instagram Login (the default), the Meta host and page_id
// for Facebook Login.
func (a *Adapter) node(acc channels.Account) (*node, error) {
	c := acc.Provider
	unavailable := func(why string) error {
		return &channels.Refusal{Code: apierr.ChannelUnavailable,
			Reason: fmt.Sprintf("The Instagram account %s %s; nothing was sent.", acc.ID, why)}
	}
	if c == nil || c.AccessToken == "" {
		return nil, unavailable("has no provider credentials")
	}
	switch c.Login {
	case "", LoginInstagram:
		if c.IGUserID == "" {
			return nil, unavailable("uses Instagram Login but has no ig_user_id")
		}
		return &node{client: withProof(a.Instagram, c.AppSecret), id: c.IGUserID, token: c.AccessToken}, nil
	case LoginFacebook:
		if c.PageID == "" {
			return nil, unavailable("uses Facebook Login but has no page_id")
		}
		return &node{client: withProof(a.Graph, c.AppSecret), id: c.PageID, token: c.AccessToken}, nil
	}
	return nil, unavailable(fmt.Sprintf("has an unknown login %q", c.Login))
}

// Send sends m: a public comment reply (reply_as comment, or no reply_as on
// a comment), a private reply (reply_as dm), or a DM.
func (a *Adapter) Send(ctx context.Context, m *channels.Message) (*channels.Receipt, error) {
	n, err := a.node(m.Account)
	if err != nil {
		return nil, err
	}
	text := ""
	if m.Text != nil {
		text = *m.Text
	}
	switch {
	case m.CommentID != "" && m.ReplyAs == "dm":
		if err := a.liveReplyAllowed(ctx, m); err != nil {
			return nil, err
		}
		return a.privateReply(ctx, n, m.CommentID, text, m.Attachments)
	case m.CommentID != "":
		return a.commentReply(ctx, n, m.CommentID, text, m.Attachments)
	case m.ReplyAs != "":
		return nil, &channels.Refusal{Code: apierr.InvalidRequest, Reason: "reply_as needs the comment it answers."}
	}
	if receipt, ok, err := a.richDM(ctx, n, m); ok {
		return receipt, err
	}
	return a.dm(ctx, n, m, text)
}

// dm sends the text, then each attachment as a request of its own.
func (a *Adapter) dm(ctx context.Context, n *node, m *channels.Message, text string) (*channels.Receipt, error) {
	to, files := m.To, m.Attachments
	if to == "" {
		return nil, &channels.Refusal{Code: apierr.NoRecipient, Reason: "The customer has no Instagram user id to send to."}
	}
	var bodies []map[string]any
	recipient := map[string]any{"id": to}
	if text != "" {
		bodies = append(bodies, map[string]any{"recipient": recipient, "message": map[string]any{"text": text}})
		richText(bodies[0], m)
	}
	for _, f := range files {
		kind := Kind(f.ContentType)
		if kind == "" {
			return nil, &channels.Refusal{Code: apierr.UnsupportedAttachment,
				Reason: fmt.Sprintf("Instagram takes images, video and audio only, not %s.", f.ContentType)}
		}
		if f.Size > sizeCap[kind] {
			return nil, &channels.Refusal{Code: apierr.AttachmentsTooLarge,
				Reason: fmt.Sprintf("Instagram takes %s of at most %d MB; %s has %d bytes.", kind, sizeCap[kind]>>20, f.Filename, f.Size)}
		}
		attachment := map[string]any{"type": kind, "payload": map[string]any{"url": f.URL}}
		bodies = append(bodies, map[string]any{"recipient": recipient, "message": map[string]any{"attachment": attachment}})
	}
	if len(bodies) == 0 {
		return nil, &channels.Refusal{Code: apierr.TextRequired, Reason: "An Instagram message needs text or an attachment."}
	}
	for _, b := range bodies {
		tagged(b, m)
	}
	return channels.SendParts(len(bodies), func(i int) (string, error) { return a.message(ctx, n, bodies[i]) })
}

// privateReply is the one DM a comment allows: recipient.comment_id, text
// only (the 7 days and the once are kept by the send rules).
func (a *Adapter) privateReply(ctx context.Context, n *node, commentID, text string, files []channels.File) (*channels.Receipt, error) {
	if len(files) > 0 {
		return nil, &channels.Refusal{Code: apierr.UnsupportedAttachment, Reason: "A private reply to a comment takes text only."}
	}
	if text == "" {
		return nil, &channels.Refusal{Code: apierr.TextRequired, Reason: "A private reply needs text."}
	}
	id, err := a.message(ctx, n, map[string]any{"recipient": map[string]any{"comment_id": commentID}, "message": map[string]any{"text": text}})
	if err != nil {
		return nil, err
	}
	return &channels.Receipt{ProviderIDs: []string{id}}, nil
}

// commentReply is the public reply: POST /{comment_id}/replies with the
// message, on the host of the account's login.
func (a *Adapter) commentReply(ctx context.Context, n *node, commentID, text string, files []channels.File) (*channels.Receipt, error) {
	if len(files) > 0 {
		return nil, &channels.Refusal{Code: apierr.UnsupportedAttachment, Reason: "A public comment reply takes text only."}
	}
	if text == "" {
		return nil, &channels.Refusal{Code: apierr.TextRequired, Reason: "A comment reply needs text."}
	}
	var out struct {
		ID string `json:"id"`
	}
	if err := n.client.PostJSON(ctx, n.token, map[string]any{"message": text}, &out, commentID, "replies"); err != nil {
		return nil, err
	}
	if out.ID == "" {
		return nil, &meta.Error{HTTPStatus: http.StatusOK, Unanswered: true, Message: "the provider took the reply without an id"}
	}
	return &channels.Receipt{ProviderIDs: []string{out.ID}}, nil
}

// tagged gives a message body the message's tag: outside the 24-hour
// window every message carries it.
func tagged(body map[string]any, m *channels.Message) {
	if m.Tag != "" {
		body["messaging_type"], body["tag"] = "MESSAGE_TAG", m.Tag
	}
}

func (a *Adapter) message(ctx context.Context, n *node, body map[string]any) (string, error) {
	var out struct {
		MessageID string `json:"message_id"`
	}
	if err := n.client.PostJSON(ctx, n.token, body, &out, n.id, "messages"); err != nil {
		return "", err
	}
	if out.MessageID == "" {
		return "", &meta.Error{HTTPStatus: http.StatusOK, Unanswered: true, Message: "the provider accepted the message without a message_id"}
	}
	return out.MessageID, nil
}
