package webtest

import (
	"fmt"
	"strings"
)

// Violation is one axe-core rule a page breaks.
type Violation struct {
	ID, Impact, Help string
	Nodes            []string
}

// axeRun runs axe-core over the document with the WCAG 2.0 and 2.1 A and
// AA rules and answers the serious and critical violations. The email
// frames (sandboxed, without scripts: axe cannot enter them) are the
// customer's content and are left out.
const axeRun = `axe.run(document, {
  runOnly: {type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]},
  resultTypes: ["violations"], iframes: false,
}).then((r) => r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => ({
  ID: v.id, Impact: v.impact, Help: v.help,
  Nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ") + ": " + (n.failureSummary || "").replace(/\s+/g, " ")),
})))`

// Axe checks the page as it shows now with axe-core (vendored) and fails
// the test on each serious or critical WCAG 2.1 A/AA violation; page names
// the screen in the message. It returns the violations.
func (p *Person) Axe(page string) []Violation {
	p.T.Helper()
	var loaded bool
	p.Eval(`typeof window.axe === "object"`, &loaded)
	if !loaded {
		// Evaluated through the DevTools protocol, which the page's CSP
		// does not govern (the app itself allows no inline script).
		if err := p.eval(axeSource(), nil); err != nil {
			p.T.Fatalf("inject axe-core: %v", err)
		}
	}
	var vs []Violation
	p.Eval(axeRun, &vs)
	for _, v := range vs {
		p.T.Errorf("axe on %s: %s (%s): %s\n  %s", page, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n  "))
	}
	if len(vs) > 0 {
		p.Screenshot(fmt.Sprintf("axe-%s", strings.ReplaceAll(page, " ", "_")))
	}
	return vs
}
