package send

import (
	"fmt"
	"strings"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/internal/apierr"
)

// Limits of an Instagram generic template
// (https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/messaging-api/generic-template,
// buttons as in https://developers.facebook.com/docs/instagram-platform/instagram-api-with-instagram-login/messaging-api/button-template/).
const (
	igElementsMax       = 10
	igElementTextMax    = 80 // title, subtitle
	igElementButtonsMax = 3
	igButtonTitleMax    = 20
)

// genericFit checks an Instagram generic template: 1 to 10 cards, each
// titled (80 characters, subtitle too) with something besides its title,
// at most 3 web_url or postback buttons.
func genericFit(it *model.InteractiveInput) error {
	if err := countFit("interactive.elements", len(it.Elements), igElementsMax, "Instagram", "card", "cards"); err != nil {
		return err
	}
	for i, e := range it.Elements {
		field := fmt.Sprintf("interactive.elements[%d]", i)
		switch {
		case e == nil || nonBlank(e.Title) == nil:
			return apierr.New(apierr.InvalidRequest, "%s needs a title.", field)
		case chars(*e.Title) > igElementTextMax:
			return over(field+".title", "at most %d characters; this has %d.", igElementTextMax, chars(*e.Title))
		case chars(deref(e.Subtitle)) > igElementTextMax:
			return over(field+".subtitle", "at most %d characters; this has %d.", igElementTextMax, chars(deref(e.Subtitle)))
		case e.Subtitle == nil && e.ImageURL == nil && e.URL == nil && len(e.Buttons) == 0:
			return apierr.New(apierr.InvalidRequest, "%s needs a subtitle, image_url, url or buttons besides its title.", field)
		case e.ImageURL != nil && !isHTTP(*e.ImageURL):
			return apierr.New(apierr.InvalidRequest, "%s.image_url must be an http(s) URL.", field)
		case e.URL != nil && !isHTTP(*e.URL):
			return apierr.New(apierr.InvalidRequest, "%s.url must be an http(s) URL.", field)
		case len(e.Buttons) > igElementButtonsMax:
			return over(field+".buttons", "Instagram takes at most %d buttons a card; this has %d.", igElementButtonsMax, len(e.Buttons))
		}
		for j, b := range e.Buttons {
			if err := elementButtonFit(fmt.Sprintf("%s.buttons[%d]", field, j), b); err != nil {
				return err
			}
		}
	}
	return nil
}

// elementButtonFit checks a card's button.
func elementButtonFit(field string, b *model.ElementButtonInput) error {
	switch {
	case b == nil || nonBlank(b.Title) == nil:
		return apierr.New(apierr.InvalidRequest, "%s needs a title.", field)
	case chars(*b.Title) > igButtonTitleMax:
		return over(field+".title", "at most %d characters; %q has %d.", igButtonTitleMax, *b.Title, chars(*b.Title))
	case deref(b.Type) == "web_url" && (b.URL == nil || !isHTTP(*b.URL)):
		return apierr.New(apierr.InvalidRequest, "%s.url must be an http(s) URL for a web_url button.", field)
	case deref(b.Type) == "postback" && nonBlank(b.Payload) == nil:
		return apierr.New(apierr.InvalidRequest, "%s.payload is required for a postback button.", field)
	case deref(b.Type) != "web_url" && deref(b.Type) != "postback":
		return apierr.New(apierr.InvalidRequest, "%s.type must be web_url or postback.", field)
	}
	return nil
}

// isHTTP says whether s is an http(s) URL.
func isHTTP(s string) bool {
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

// elementsOut are the checked cards in the adapter's form.
func elementsOut(in []*model.ElementInput) []channels.Element {
	var out []channels.Element
	for _, e := range in {
		el := channels.Element{Title: *e.Title, Subtitle: deref(e.Subtitle), ImageURL: deref(e.ImageURL), URL: deref(e.URL)}
		for _, b := range e.Buttons {
			el.Buttons = append(el.Buttons, channels.ElementButton{Type: *b.Type, Title: *b.Title, URL: deref(b.URL), Payload: deref(b.Payload)})
		}
		out = append(out, el)
	}
	return out
}
