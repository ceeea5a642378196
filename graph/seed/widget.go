package seed

import (
	"regexp"

	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/repo"
)

// FixtureWidget is a website's chat widget: its identity secret
// (sealed when stored), colour and greeting.
type FixtureWidget struct {
	IdentitySecret *string `json:"identity_secret"`
	Color          *string `json:"color"`
	Greeting       *string `json:"greeting"`
}

var hexColor = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$`)

// widget validates and writes a website's widget settings; a website
// without a widget object keeps the defaults.
func (s *workspaceSeed) widget(p, websiteID string, w *FixtureWidget) error {
	if w == nil {
		return nil
	}
	p += ".widget"
	row := &repo.WebsiteWidget{WebsiteID: websiteID, WorkspaceID: s.w.ID, Color: orDefault(w.Color, ""), Greeting: orDefault(w.Greeting, "")}
	if row.Color != "" && !hexColor.MatchString(row.Color) {
		return s.bad(p+".color", "must be a hex colour like #0a7cff")
	}
	if len([]rune(row.Greeting)) > 500 {
		return s.bad(p+".greeting", "must be at most 500 characters")
	}
	if w.IdentitySecret != nil && *w.IdentitySecret != "" {
		sealed, err := s.seal.Seal([]byte(*w.IdentitySecret), visitor.SealAAD(websiteID))
		if err != nil {
			return s.bad(p+".identity_secret", "cannot be sealed: %v", err)
		}
		row.IdentitySecretSealed = &sealed
	}
	return s.wrap(p, s.q.UpsertWebsiteWidget(s.ctx, row))
}
