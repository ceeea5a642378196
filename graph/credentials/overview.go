package credentials

import (
	"context"
	"html"
	"strings"

	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
)

// Overview is the portal's channels page (channelsOverview): every account
// with its status, the widget snippet of each website, the email senders'
// state and this month's quota, for developers, admins and owners.
type Overview struct {
	Channels *Channels
	Usage    interface {
		Current(ctx context.Context) (*model.Usage, error)
	}
	Senders interface {
		EmailSenders(ctx context.Context) (*model.EmailSenderPage, error)
	}
	// PublicURL is where widget.js is served (MSGSVC_PUBLIC_URL; "" gives
	// a relative link).
	PublicURL string
}

// Get reads the overview: the same answers as channels, emailSenders and
// usage.
func (o *Overview) Get(ctx context.Context) (*model.ChannelsOverview, error) {
	if _, err := auth.ForField(ctx, "channelsOverview"); err != nil {
		return nil, err
	}
	ch, err := o.Channels.List(ctx)
	if err != nil {
		return nil, err
	}
	senders, err := o.Senders.EmailSenders(ctx)
	if err != nil {
		return nil, err
	}
	usage, err := o.Usage.Current(ctx)
	if err != nil {
		return nil, err
	}
	out := &model.ChannelsOverview{Websites: make([]*model.WebsiteOverview, len(ch.Websites)), Whatsapp: ch.Whatsapp,
		Instagram: ch.Instagram, Email: ch.Email, EmailSenders: senders.Items, Usage: usage}
	for i, w := range ch.Websites {
		out.Websites[i] = &model.WebsiteOverview{Website: w, Snippet: Snippet(o.PublicURL, w.ID)}
	}
	return out, nil
}

// Snippet is the HTML a website pastes into its pages (docs/widget.md).
func Snippet(publicURL, websiteID string) string {
	return `<script src="` + html.EscapeString(strings.TrimRight(publicURL, "/")+"/widget.js") +
		`" data-website="` + html.EscapeString(websiteID) + `" async></script>`
}
