package email

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"golang.org/x/net/html"
)

// linkSchemes are the schemes a link keeps; a relative link, a fragment
// and every other scheme lose their href.
var linkSchemes = setOf("http", "https", "mailto", "tel")

// dataImage is a data: URL of a raster image, the only data: kept (in img).
var dataImage = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]+$`)

// link keeps an absolute href of linkSchemes; web links open in a new
// browsing context that cannot reach the page (noopener) nor tell it who
// sent the reader (noreferrer).
func (s *sanitizer) link(attrs []html.Attribute) []html.Attribute {
	out := attrs[:0]
	web := false
	for _, a := range attrs {
		if a.Key == "href" {
			u := parseURL(a.Val)
			if u == nil || !linkSchemes[strings.ToLower(u.Scheme)] || (strings.HasPrefix(strings.ToLower(u.Scheme), "http") && u.Host == "") {
				continue
			}
			web = strings.HasPrefix(strings.ToLower(u.Scheme), "http")
			a.Val = u.String()
		}
		out = append(out, a)
	}
	if web {
		out = append(out, html.Attribute{Key: "target", Val: "_blank"}, html.Attribute{Key: "rel", Val: "noopener noreferrer nofollow"})
	}
	return out
}

// image keeps a src that is one of the mail's own attachments (cid:), a
// small data:image, or a remote image the policy allows (or proxies); a
// blocked remote image keeps its address in RemoteSrcAttr, where nothing
// loads it.
func (s *sanitizer) image(attrs []html.Attribute) []html.Attribute {
	out := attrs[:0]
	for _, a := range attrs {
		if a.Key != "src" {
			out = append(out, a)
			continue
		}
		v := a.Val
		if ref, ok := s.cid(v); ok {
			out = append(out, html.Attribute{Key: "src", Val: ref})
			continue
		}
		if len(v) <= MaxDataImage && dataImage.MatchString(v) {
			out = append(out, html.Attribute{Key: "src", Val: v})
			continue
		}
		u := parseURL(v)
		if u == nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			continue
		}
		switch s.RemoteImages {
		case RemoteImagesAllow:
			out = append(out, html.Attribute{Key: "src", Val: u.String()})
			continue
		case RemoteImagesProxy:
			out = append(out, html.Attribute{Key: "src", Val: channels.ImageProxyPrefix + u.String()})
			continue
		}
		s.blocked++
		out = append(out, html.Attribute{Key: RemoteSrcAttr, Val: u.String()})
	}
	return out
}

// cid is the link of a "cid:" reference to one of the mail's attachments.
func (s *sanitizer) cid(v string) (string, bool) {
	v = strings.TrimSpace(v)
	if len(v) < 4 || !strings.EqualFold(v[:4], "cid:") {
		return "", false
	}
	id, err := url.PathUnescape(v[4:])
	if err != nil {
		id = v[4:]
	}
	ref, ok := s.Inline[strings.Trim(id, "<>")]
	return ref, ok && ref != ""
}
