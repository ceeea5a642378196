package files

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/egress"
)

// Limits of the email image proxy.
const (
	// MaxProxiedImage is the largest remote image passed on.
	MaxProxiedImage = 5 << 20
	imageTimeout    = 10 * time.Second
)

// proxiedTypes are the image types passed on, as their bytes say (never
// SVG, which can hold script).
var proxiedTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// proxyRef is a stored html's reference to a remote image (the address
// HTML-escaped, as in an attribute).
var proxyRef = regexp.MustCompile(`"` + regexp.QuoteMeta(channels.ImageProxyPrefix) + `([^"]*)"`)

// ImageURL is the one-hour signed link through which msgsvc fetches a
// remote image of an inbound mail (MSGSVC_EMAIL_REMOTE_IMAGES=proxy), so the
// reader's browser never contacts the sender's server.
func (s *Service) ImageURL(remote string) string {
	return s.PublicURL + "/v1/email/images?url=" + url.QueryEscape(remote) + "&" + s.linkQuery("image:"+remote)
}

// signImages makes the html's remote image references signed proxy links.
func (s *Service) signImages(h string) string {
	return proxyRef.ReplaceAllStringFunc(h, func(m string) string {
		remote := html.UnescapeString(m[1+len(channels.ImageProxyPrefix) : len(m)-1])
		return `"` + html.EscapeString(s.ImageURL(remote)) + `"`
	})
}

// RemoteImage is an image fetched for the proxy.
type RemoteImage struct {
	ContentType string
	Content     []byte
}

// Image fetches the remote image a signed proxy link names, while the link
// is valid: http or https, a public address (after DNS, at every
// redirect, each to https), at most MaxProxiedImage bytes of PNG, JPEG,
// GIF or WebP. Nothing of the
// reader (cookies, address, referrer) goes with the request.
func (s *Service) Image(ctx context.Context, remote, expires, signature string) (*RemoteImage, error) {
	if !s.validLink("image:"+remote, expires, signature) {
		return nil, apierr.New(apierr.FileLinkInvalid, "This image link is invalid or has expired; read the message again for a fresh link.")
	}
	u, err := url.Parse(remote)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, apierr.New(apierr.ImageUnavailable, "The image's address is not an http(s) URL.")
	}
	gone := func(why string) error {
		return apierr.New(apierr.ImageUnavailable, "The remote image could not be fetched: %s.", why)
	}
	ctx, cancel := context.WithTimeout(ctx, imageTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, gone("a bad address")
	}
	req.Header.Set("User-Agent", "msgsvc-image-proxy")
	req.Header.Set("Accept", "image/png, image/jpeg, image/gif, image/webp")
	resp, err := s.imageClient().Do(req)
	if err != nil {
		return nil, gone(imageProblem(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, gone(fmt.Sprintf("the server answered HTTP %d", resp.StatusCode))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxProxiedImage+1))
	if err != nil {
		return nil, gone("the answer broke off")
	}
	if len(body) > MaxProxiedImage {
		return nil, gone(fmt.Sprintf("it is over %d MB", MaxProxiedImage>>20))
	}
	if ct := http.DetectContentType(body); proxiedTypes[ct] {
		return &RemoteImage{ContentType: ct, Content: body}, nil
	}
	return nil, gone("it is not a PNG, JPEG, GIF or WebP image")
}

// imageProblem names why an image could not be fetched: the guard's
// refusal, or the server unreachable (never what DNS or it answered).
func imageProblem(err error) string {
	var refused *egress.Error
	if errors.As(err, &refused) {
		return strings.TrimPrefix(refused.Error(), "msgsvc ")
	}
	return "the server could not be reached (" + egress.Cause(err) + ")"
}

func (s *Service) imageClient() *http.Client {
	if s.ImageClient != nil {
		return s.ImageClient
	}
	return guardedClient()
}

// guardedClient is the proxy's client: the guarded client (graph/egress),
// whose dialer refuses internal addresses after DNS resolution; an http
// image may be asked for, and at most 3 redirects, each to https, are
// followed.
var guardedClient = sync.OnceValue(func() *http.Client {
	return egress.New(egress.Options{PlainHTTP: true, Redirects: 3, Timeout: imageTimeout})
})

// hasImages says the html holds remote image references to sign.
func hasImages(h *string) bool { return h != nil && strings.Contains(*h, channels.ImageProxyPrefix) }
