package mail

import (
	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/graph/model"
)

// Display is the email channel's inbound.Display: the adapter's sanitiser
// (email.Display) under the server's remote image policy
// (MSGSVC_EMAIL_REMOTE_IMAGES: email.RemoteImagesBlock, Allow or Proxy).
type Display struct{ RemoteImages string }

// Show is the HTML to show; the warnings of what it withheld join
// warnings as the parser's do (email.AddWarning: once each, a bounded
// list).
func (d Display) Show(raw string, inline map[string]string, warnings []model.EmailWarning) (string, []model.EmailWarning) {
	safe, shown := email.Display{Inline: inline, RemoteImages: d.RemoteImages}.Sanitize(raw)
	all := make([]email.Warning, len(warnings))
	for i, w := range warnings {
		all[i] = email.Warning(w)
	}
	for _, w := range shown {
		all = email.AddWarning(all, w)
	}
	out := make([]model.EmailWarning, len(all))
	for i, w := range all {
		out[i] = model.EmailWarning(w)
	}
	return safe, out
}
