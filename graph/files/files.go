// Package files holds uploads and attachments: what may be stored or sent,
// and the signed one-hour links to a file's bytes.
package files

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/signing"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/clock"
	"github.com/msgsvc/msgsvc/repo"
)

// Attachment limits (spec Limits).
const (
	// MaxFileSize is the largest file, and the most all attachments of one
	// message may add up to.
	MaxFileSize = 10 << 20
	// linkTTL is how long a signed file link works.
	linkTTL = time.Hour
)

// Executables and scripts are refused by name, by declared type and by their
// first bytes, so renaming a program does not get it through.
var (
	blockedExtensions = map[string]bool{
		".exe": true, ".dll": true, ".com": true, ".bat": true, ".cmd": true, ".msi": true, ".msp": true,
		".scr": true, ".pif": true, ".cpl": true, ".hta": true, ".jar": true, ".js": true, ".jse": true,
		".vbs": true, ".vbe": true, ".wsf": true, ".wsh": true, ".ps1": true, ".psm1": true, ".sh": true,
		".bash": true, ".zsh": true, ".csh": true, ".ksh": true, ".py": true, ".pl": true, ".rb": true,
		".php": true, ".apk": true, ".app": true, ".deb": true, ".rpm": true, ".dmg": true, ".reg": true,
		".lnk": true, ".msc": true, ".elf": true, ".bin": true, ".run": true, ".command": true,
	}
	blockedTypes = map[string]bool{
		"application/x-msdownload": true, "application/x-dosexec": true, "application/x-executable": true,
		"application/vnd.microsoft.portable-executable": true, "application/x-msi": true,
		"application/x-elf": true, "application/x-mach-binary": true, "application/java-archive": true,
		"application/x-java-archive": true, "application/javascript": true, "application/x-javascript": true,
		"text/javascript": true, "application/x-sh": true, "application/x-shellscript": true,
		"text/x-shellscript": true, "text/x-sh": true, "application/x-csh": true, "application/x-bat": true,
		"application/x-msdos-program": true, "application/x-powershell": true, "text/x-python": true,
		"application/x-python-code": true, "text/x-perl": true, "application/x-perl": true,
		"application/x-php": true, "text/x-php": true, "application/x-ruby": true,
		"application/vnd.android.package-archive": true, "application/x-apple-diskimage": true,
	}
	executableMagic = [][]byte{
		[]byte("MZ"), []byte("\x7fELF"), []byte("#!"), {0xfe, 0xed, 0xfa, 0xce}, {0xfe, 0xed, 0xfa, 0xcf},
		{0xce, 0xfa, 0xed, 0xfe}, {0xcf, 0xfa, 0xed, 0xfe}, {0xca, 0xfe, 0xba, 0xbe},
	}
)

// Meta is a file's name and type before it is stored.
type Meta struct {
	Filename    string
	ContentType string
}

// CleanFilename keeps the last path element of a name; empty names, and
// names that are only a path, are refused.
func CleanFilename(raw string) (string, bool) {
	name := path.Base(strings.ReplaceAll(strings.TrimSpace(raw), "\\", "/"))
	if name == "" || name == "." || name == "/" || len(name) > 255 || strings.ContainsAny(name, "\x00\r\n") {
		return "", false
	}
	return name, true
}

// ContentTypeOf is the declared type without parameters, or the type the
// name or the bytes suggest.
func ContentTypeOf(declared *string, filename string, content []byte) (string, bool) {
	if declared != nil && strings.TrimSpace(*declared) != "" {
		t, _, err := mime.ParseMediaType(*declared)
		return strings.ToLower(t), err == nil
	}
	if t := mime.TypeByExtension(strings.ToLower(path.Ext(filename))); t != "" {
		if bare, _, err := mime.ParseMediaType(t); err == nil {
			t = bare
		}
		return t, true
	}
	t, _, _ := mime.ParseMediaType(http.DetectContentType(content))
	return t, true
}

// Rejected says why a file may not be stored or sent, or nil.
func Rejected(m Meta, size int, head []byte) error {
	switch {
	case size == 0:
		return apierr.New(apierr.FileRejected, "%s is empty.", m.Filename)
	case size > MaxFileSize:
		return apierr.New(apierr.FileRejected, "%s is %d bytes; files may be at most 10 MB.", m.Filename, size)
	case blockedExtensions[strings.ToLower(path.Ext(m.Filename))] || blockedTypes[m.ContentType]:
		return apierr.New(apierr.FileRejected, "%s is an executable or script (%s); those are not accepted.", m.Filename, m.ContentType)
	}
	for _, magic := range executableMagic {
		if bytes.HasPrefix(head, magic) {
			return apierr.New(apierr.FileRejected, "%s holds an executable or script; those are not accepted.", m.Filename)
		}
	}
	return nil
}

// DecodeBase64 reads standard or URL-safe base64, padded or not.
func DecodeBase64(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// Store keeps the files' bytes.
type Store interface {
	InsertFile(ctx context.Context, f *repo.File) error
	FileByID(ctx context.Context, id string) (*repo.File, error)
	FileChunk(ctx context.Context, id string, offset, n int) ([]byte, error)
}

// Service stores uploads and signs their links.
type Service struct {
	Store Store
	Clock clock.Clock
	// Secrets sign links (the first) and check them (every one).
	Secrets signing.Secrets
	// PublicURL is the base of signed file links ("" gives relative links).
	PublicURL string
	// ImageClient fetches the email image proxy's images; nil is a client
	// that reaches public addresses only.
	ImageClient *http.Client
}

// Upload stores a file for one later message (POST /v1/files).
func (s *Service) Upload(ctx context.Context, in model.UploadFileInput) (*model.File, error) {
	a, err := auth.From(ctx)
	if err != nil {
		return nil, err
	}
	if in.Filename == nil {
		return nil, apierr.New(apierr.InvalidRequest, "filename is required.")
	}
	name, ok := CleanFilename(*in.Filename)
	if !ok {
		return nil, apierr.New(apierr.InvalidRequest, "filename must be a file name of 1 to 255 characters.")
	}
	content := in.Content
	if content == nil {
		if in.ContentBase64 == nil {
			return nil, apierr.New(apierr.InvalidRequest, "content_base64 is required.")
		}
		if content, err = DecodeBase64(*in.ContentBase64); err != nil {
			return nil, apierr.New(apierr.InvalidRequest, "content_base64 is not base64.")
		}
	}
	ctype, ok := ContentTypeOf(in.ContentType, name, content)
	if !ok {
		return nil, apierr.New(apierr.FileRejected, "content_type %q is not a media type.", *in.ContentType)
	}
	meta := Meta{Filename: name, ContentType: ctype}
	if err := Rejected(meta, len(content), content); err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	f := &repo.File{ID: repo.NewID("file_", now), WorkspaceID: a.WorkspaceID, Livemode: a.Livemode,
		Filename: name, ContentType: ctype, Size: len(content), Content: content, CreatedAt: now}
	if err := s.Store.InsertFile(ctx, f); err != nil {
		return nil, fmt.Errorf("files: upload: %w", err)
	}
	return &model.File{ID: f.ID, Object: "file", Filename: f.Filename, ContentType: f.ContentType,
		Size: f.Size, CreatedAt: model.NewTimestamp(now)}, nil
}

// mac signs a file id and an expiry time.
func mac(secret, id string, expires int64) string {
	m := hmac.New(sha256.New, []byte("file:"+secret))
	m.Write([]byte(id + "." + strconv.FormatInt(expires, 10)))
	return hex.EncodeToString(m.Sum(nil)[:16])
}

// linkQuery is the query (expires, signature) of a link to what id names
// that works for one hour without a key.
func (s *Service) linkQuery(id string) string {
	expires := s.Clock.Now().Add(linkTTL).Unix()
	return "expires=" + strconv.FormatInt(expires, 10) + "&signature=" + mac(s.Secrets.Signing(), id, expires)
}

// validLink says whether expires and signature are linkQuery's for id,
// and the link has not expired.
func (s *Service) validLink(id, expires, signature string) bool {
	exp, err := strconv.ParseInt(expires, 10, 64)
	return err == nil && s.Secrets.Verify(signature, func(secret string) string { return mac(secret, id, exp) }) &&
		s.Clock.Now().Before(time.Unix(exp, 0))
}

// URL is a link to a file's bytes that works for one hour without a key.
func (s *Service) URL(id string) string {
	return s.PublicURL + "/v1/files/" + url.PathEscape(id) + "/content?" + s.linkQuery(id)
}

// Content returns the file a signed link names, while the link is valid,
// without its bytes: Body reads them.
func (s *Service) Content(ctx context.Context, id, expires, signature string) (*repo.File, error) {
	bad := apierr.New(apierr.FileLinkInvalid, "This file link is invalid or has expired; read the message again for a fresh link.")
	if !s.validLink(id, expires, signature) {
		return nil, bad
	}
	f, err := s.Store.FileByID(ctx, id)
	if errors.Is(err, repo.ErrNotFound) {
		return nil, bad
	}
	if err != nil {
		return nil, fmt.Errorf("files: content: %w", err)
	}
	return f, nil
}

// InlinePrefix starts a stored html's reference to one of its message's
// attachments (a cid: image of an inbound mail); reads make it a signed
// link (SignAttachments), so the stored html never holds one that expires.
const InlinePrefix = "msgsvc-file:"

// InlineRef is the stored html's reference to the attachment id (ended by
// a "/", so no id's reference starts another's).
func InlineRef(id string) string { return InlinePrefix + id + "/" }

// SignAttachments gives each attachment a fresh one-hour link, the html's
// references to the message's own attachments the same links, and its
// remote images to proxy their signed proxy links.
func (s *Service) SignAttachments(msgs ...*model.Message) {
	for _, m := range msgs {
		if hasImages(m.HTML) {
			rewritten := s.signImages(*m.HTML)
			m.HTML = &rewritten
		}
		inline := m.HTML != nil && strings.Contains(*m.HTML, InlinePrefix)
		for _, att := range m.Attachments {
			att.URL = s.URL(att.ID)
			if inline {
				rewritten := strings.ReplaceAll(*m.HTML, InlineRef(att.ID), html.EscapeString(att.URL))
				m.HTML = &rewritten
			}
		}
	}
}
