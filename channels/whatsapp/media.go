package whatsapp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
)

// MaxMediaSize is the largest inbound media downloaded (WhatsApp's document
// limit).
const MaxMediaSize = 100 << 20

// ErrDigestMismatch is a downloaded file whose bytes do not match the
// sha256 Meta announced: the file is not kept.
var ErrDigestMismatch = errors.New("whatsapp: the media's sha256 does not match its bytes")

// Media is a downloaded inbound media file.
type Media struct {
	ID       string
	MimeType string
	// SHA256 is the digest Meta announced (standard base64).
	SHA256  string
	Content []byte
}

type mediaInfo struct {
	URL      string `json:"url"`
	MimeType string `json:"mime_type"`
	SHA256   string `json:"sha256"`
	// FileSize is a string in Meta's schema ("303833"; facebook/openapi
	// business-messaging-api, Retrieve Media URL), a number in some
	// answers: both are read.
	FileSize meta.ID `json:"file_size"`
}

// DownloadMedia fetches an inbound media: GET /{media_id} for its URL, then
// the URL with the same bearer header, checking the bytes against the
// sha256 of the media info and against want (the webhook's, "" to skip).
func (a *Adapter) DownloadMedia(ctx context.Context, creds *channels.Credentials, mediaID, want string) (*Media, error) {
	if creds == nil || creds.AccessToken == "" {
		return nil, &meta.Error{Message: "the account has no token to download the media with"}
	}
	var q url.Values
	if creds.PhoneNumberID != "" {
		q = url.Values{"phone_number_id": {creds.PhoneNumberID}}
	}
	var info mediaInfo
	if err := a.Graph.GetJSON(ctx, creds.AccessToken, q, &info, mediaID); err != nil {
		return nil, err
	}
	if size, _ := strconv.ParseInt(string(info.FileSize), 10, 64); size > MaxMediaSize {
		return nil, &meta.Error{HTTPStatus: http.StatusOK, Message: fmt.Sprintf("the media has %d bytes, more than the %d MB msgsvc downloads", size, MaxMediaSize>>20)}
	}
	if err := a.mediaURL(info.URL); err != nil {
		return nil, err
	}
	content, contentType, err := a.Graph.Fetch(ctx, info.URL, creds.AccessToken, MaxMediaSize)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(content)
	for _, digest := range []string{info.SHA256, want} {
		if digest != "" && !SameDigest(digest, sum[:]) {
			return nil, ErrDigestMismatch
		}
	}
	mimeType := info.MimeType
	if mimeType == "" {
		mimeType = contentType
	}
	return &Media{ID: mediaID, MimeType: mimeType, SHA256: base64.StdEncoding.EncodeToString(sum[:]), Content: content}, nil
}

// mediaURL accepts the download URL of a media info when it has one; the
// client's guard decides where it may lead (meta.GuardedClient: the Graph
// API hosts, or Meta's media hosts over https).
func (a *Adapter) mediaURL(raw string) error {
	if u, err := url.Parse(raw); err != nil || u.Host == "" {
		return &meta.Error{HTTPStatus: http.StatusOK, Message: "the media info has no download URL"}
	}
	return nil
}

// SameDigest says whether digest (standard base64 as Meta sends it; URL-safe
// base64 or hex accepted too) is sum.
func SameDigest(digest string, sum []byte) bool {
	digest = strings.TrimSpace(digest)
	for _, dec := range []func(string) ([]byte, error){base64.StdEncoding.DecodeString, base64.RawStdEncoding.DecodeString,
		base64.URLEncoding.DecodeString, base64.RawURLEncoding.DecodeString, hex.DecodeString} {
		if b, err := dec(digest); err == nil && len(b) == len(sum) {
			return subtle.ConstantTimeCompare(b, sum) == 1
		}
	}
	return false
}
