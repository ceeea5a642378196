package instagram

import (
	"context"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
)

// Owns says whether an id Meta sends is this account's own: its Instagram
// account id (what entry[].id names on both logins, and the sender of the
// account's own comments and echoes), or the page_id of a Facebook Login
// account.
func Owns(c *channels.Credentials, entryID string) bool {
	if c == nil || entryID == "" {
		return false
	}
	return entryID == c.IGUserID || entryID == c.PageID
}

// MaxAttachmentSize is the largest inbound attachment downloaded (the
// 25 MB of Instagram's video, audio and file attachments).
const MaxAttachmentSize = 25 << 20

// Attachment is a downloaded inbound attachment.
type Attachment struct {
	// Filename is made of the type and the content type ("image.jpg").
	Filename    string
	ContentType string
	Content     []byte
}

// Downloadable says whether a webhook attachment type is a file to keep
// (image, video, audio, file); the others (share, story_mention, ig_reel,
// reel, ...) are links to Instagram content.
func Downloadable(kind string) bool {
	switch kind {
	case "image", "video", "audio", "file":
		return true
	}
	return false
}

// DownloadAttachment fetches a DM attachment from the URL its webhook
// carries: a CDN link, signed by Meta, fetched without the token; or a
// link on one of the Graph API hosts themselves (a stand-in in tests),
// fetched with the account's bearer token. The token never goes to any
// other host, and the client's guard (meta.GuardedClient) keeps every
// other link, and every redirect, to Meta's media hosts over https.
func (a *Adapter) DownloadAttachment(ctx context.Context, creds *channels.Credentials, kind, rawURL string) (*Attachment, error) {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return nil, &meta.Error{HTTPStatus: http.StatusOK, Message: "the attachment has no download URL"}
	}
	token := ""
	if a.graphHost(u) && creds != nil {
		token = creds.AccessToken
	}
	content, contentType, err := a.Instagram.Fetch(ctx, rawURL, token, MaxAttachmentSize)
	if err != nil {
		return nil, err
	}
	contentType = strings.TrimSpace(strings.Split(contentType, ";")[0])
	if contentType == "" || contentType == "application/octet-stream" {
		contentType = http.DetectContentType(content)
		contentType = strings.TrimSpace(strings.Split(contentType, ";")[0])
	}
	return &Attachment{Filename: filename(kind, contentType), ContentType: contentType, Content: content}, nil
}

// graphHost says whether u is on the Meta or the Instagram Graph host.
func (a *Adapter) graphHost(u *url.URL) bool {
	for _, c := range []*meta.Client{a.Graph, a.Instagram} {
		if base, err := url.Parse(c.BaseURL); err == nil && base.Host != "" && u.Scheme == base.Scheme && u.Host == base.Host {
			return true
		}
	}
	return false
}

// filename names an attachment by its type and content type.
func filename(kind, contentType string) string {
	if kind == "" {
		kind = "attachment"
	}
	if exts, _ := mime.ExtensionsByType(contentType); len(exts) > 0 {
		return kind + preferredExt(contentType, exts)
	}
	return kind
}

// preferredExt picks the usual extension of common types (mime's list is
// alphabetical: .jpe before .jpg).
func preferredExt(contentType string, exts []string) string {
	usual := map[string]string{"image/jpeg": ".jpg", "video/mp4": ".mp4", "audio/mpeg": ".mp3", "audio/mp4": ".m4a"}
	if e, ok := usual[contentType]; ok {
		return e
	}
	return exts[0]
}
