package webtest

import "github.com/chromedp/chromedp"

// Click waits for the node of role and name and clicks it (a real mouse
// click at its centre, after scrolling it into view).
func (p *Person) Click(role, name string) {
	p.T.Helper()
	n := p.WaitFor(role, name)
	p.ClickNode(n)
}

// aim scrolls the element into view and waits, up to two seconds (120
// frames), until its box has held still for two frames with the element
// itself at its centre (no dialog or cover over it); then it arms a flag
// the element's next click sets and returns the centre. A page that lays
// out while it loads (a dialog growing around its form) moves elements, and
// a click at a box read a moment before lands on whatever is there now.
const aim = `function() {
  this.scrollIntoView({block: "center"});
  const el = this, frame = () => new Promise((r) => requestAnimationFrame(r));
  const at = () => { const r = el.getBoundingClientRect(); return {X: r.left + r.width / 2, Y: r.top + r.height / 2, W: r.width, H: r.height}; };
  const hit = (b) => { const e = document.elementFromPoint(b.X, b.Y); return !!e && (e === el || el.contains(e) || (el.labels && [...el.labels].some((l) => l.contains(e)))); };
  return (async () => {
    let last = at();
    for (let i = 0; i < 120; i++) {
      await frame();
      const b = at();
      if (b.X === last.X && b.Y === last.Y && b.W === last.W && b.H === last.H && b.W > 0 && hit(b)) {
        el.__webtestClicked = false;
        el.addEventListener("click", () => { el.__webtestClicked = true; }, {once: true, capture: true});
        return {X: b.X, Y: b.Y, Steady: true};
      }
      last = b;
    }
    return {X: last.X, Y: last.Y, Steady: false};
  })();
}`

// ClickNode clicks a node found before: a real mouse click at its centre
// once its box holds still (aim), failing the test if the element did not
// get the click.
func (p *Person) ClickNode(n AXNode) {
	p.T.Helper()
	var box struct {
		X, Y   float64
		Steady bool
	}
	if err := p.call(n, aim, &box); err != nil {
		p.T.Fatalf("click %s %q: %v", n.Role, n.Name, err)
	}
	if !box.Steady {
		p.T.Fatalf("click %s %q: it did not hold still and show at its centre within two seconds", n.Role, n.Name)
	}
	if err := chromedp.Do(p.Ctx, chromedp.MouseClickXY(box.X, box.Y)); err != nil {
		p.T.Fatalf("click %s %q: %v", n.Role, n.Name, err)
	}
	var got bool
	if err := p.call(n, `function() { return this.__webtestClicked === true; }`, &got); err != nil {
		// The click may have taken the element away (a dialog closed, a
		// page left): it was clicked.
		return
	}
	if !got {
		p.T.Fatalf("click %s %q: the click at (%.0f, %.0f) reached another element", n.Role, n.Name, box.X, box.Y)
	}
}
