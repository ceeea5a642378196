package webtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Wait is how long a Person waits for something to show (the app's live
// updates are due within 2 s; the rest is slack for a loaded machine).
var Wait = 20 * time.Second

// Person is one signed-in (or not yet) member in a tab with cookies of her
// own. Her methods fail the test on an error.
type Person struct {
	T   testing.TB
	Ctx context.Context
	b   *Browser
}

// watch records CSP violations and uncaught errors of every document in
// window.__webtest (the script is injected by the browser, not the page, so
// the CSP does not apply to it).
const watch = `(() => {
  const w = window.__webtest = { csp: [], errors: [] };
  document.addEventListener("securitypolicyviolation", (e) =>
    w.csp.push(e.violatedDirective + " blocked " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber));
  addEventListener("error", (e) => w.errors.push(String(e.message)));
  addEventListener("unhandledrejection", (e) => w.errors.push("unhandled rejection: " + String(e.reason && (e.reason.stack || e.reason))));
})()`

// Person opens a tab for one person. At the end of the test her page must
// have had no CSP violation and no uncaught error.
func (b *Browser) Person() *Person {
	t := b.t
	t.Helper()
	ctx, cancel := chromedp.NewContext(b.root, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	p := &Person{T: t, Ctx: ctx, b: b}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watch}); err != nil {
		t.Fatalf("webtest: start a tab: %v", err)
	}
	t.Cleanup(func() { p.checkPage() })
	return p
}

func (p *Person) checkPage() {
	var w struct{ CSP, Errors []string }
	if err := p.eval(`window.__webtest || {csp: [], errors: []}`, &w); err != nil {
		return // the tab is gone
	}
	for _, v := range w.CSP {
		p.T.Errorf("CSP violation in the app: %s", v)
	}
	for _, e := range w.Errors {
		p.T.Errorf("uncaught error in the app: %s", e)
	}
}

// URL is the app's address for path ("/app/inbox").
func (p *Person) URL(path string) string { return p.b.base + path }

// Open navigates to path.
func (p *Person) Open(path string) {
	p.T.Helper()
	if err := chromedp.Do(p.Ctx, chromedp.Navigate(p.URL(path))); err != nil {
		p.T.Fatalf("open %s: %v", path, err)
	}
}

// SignIn signs in on /app/sign-in with the code mailed to address, as a
// person does: Email, Send code, Code from the mail, Sign in; it returns once
// the navigation Main shows.
func (p *Person) SignIn(address string) {
	p.T.Helper()
	if p.b.app == nil {
		p.T.Fatal("webtest: SignIn needs a browser of App.Browser (the sign-in code comes from its mail sink)")
	}
	p.Open("/app/sign-in")
	p.Fill("textbox", "Email", address)
	p.Click("button", "Send code")
	code := p.b.app.Code(p.T, address)
	p.Fill("textbox", "Code", code)
	p.Click("button", "Sign in")
	p.WaitFor("navigation", "Main")
}

// AXNode is one node of Chromium's accessibility tree that a query found.
type AXNode struct {
	Role, Name string
	backend    int64
}

// Find returns the nodes of role whose accessible name is name, or starts
// with it when prefix (a view's name with its count, "Waiting 3"; a list
// item's link that starts with the contact's name).
func (p *Person) Find(role, name string, prefix bool) ([]AXNode, error) {
	doc, err := chromedp.Call(p.Ctx, dom.GetDocument, dom.GetDocumentParams{Depth: new(int64)})
	if err != nil {
		return nil, err
	}
	params := accessibility.QueryAXTreeParams{BackendNodeID: doc.Root.BackendNodeID, Role: role}
	if !prefix {
		params.AccessibleName = name
	}
	res, err := chromedp.Call(p.Ctx, accessibility.QueryAXTree, params)
	if err != nil {
		return nil, err
	}
	var out []AXNode
	for _, n := range res.Nodes {
		if n.Ignored || n.BackendDOMNodeID == 0 {
			continue
		}
		var got string
		if n.Name != nil {
			_ = json.Unmarshal(n.Name.Value, &got)
		}
		if got != name && !(prefix && strings.HasPrefix(got, name)) {
			continue
		}
		out = append(out, AXNode{Role: role, Name: got, backend: int64(n.BackendDOMNodeID)})
	}
	return out, nil
}

// Has reports whether one node of role and name shows now.
func (p *Person) Has(role, name string) bool {
	nodes, err := p.Find(role, name, false)
	return err == nil && len(nodes) > 0
}

// WaitFor waits until exactly one node of role and name shows, and returns it.
func (p *Person) WaitFor(role, name string) AXNode { return p.waitFor(role, name, false) }

// WaitForPrefix is WaitFor for a name that may go on ("Waiting 3").
func (p *Person) WaitForPrefix(role, name string) AXNode { return p.waitFor(role, name, true) }

func (p *Person) waitFor(role, name string, prefix bool) AXNode {
	p.T.Helper()
	deadline := time.Now().Add(Wait)
	for {
		nodes, err := p.Find(role, name, prefix)
		if err == nil && len(nodes) == 1 {
			return nodes[0]
		}
		if time.Now().After(deadline) {
			p.Screenshot("failed-" + role + "-" + strings.ReplaceAll(name, " ", "_"))
			p.T.Fatalf("no single %s %q in %s (found %d, err %v); the page says:\n%s", role, name, Wait, len(nodes), err, p.Text())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitGone waits until no node of role and name shows.
func (p *Person) WaitGone(role, name string) {
	p.T.Helper()
	deadline := time.Now().Add(Wait)
	for p.Has(role, name) {
		if time.Now().After(deadline) {
			p.T.Fatalf("%s %q still shows after %s", role, name, Wait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// call runs a function with the node's element as this.
func (p *Person) call(n AXNode, fn string, out any) error {
	obj, err := chromedp.Call(p.Ctx, dom.ResolveNode, dom.ResolveNodeParams{BackendNodeID: cdpBackend(n.backend)})
	if err != nil {
		return err
	}
	t := true
	res, err := chromedp.Call(p.Ctx, runtime.CallFunctionOn, runtime.CallFunctionOnParams{
		FunctionDeclaration: fn, ObjectID: obj.Object.ObjectID, ReturnByValue: &t, AwaitPromise: &t, UserGesture: &t})
	if err != nil {
		return err
	}
	return decode(res.Result, res.ExceptionDetails, out)
}

// Focus moves the keyboard focus to the node of role and name.
func (p *Person) Focus(role, name string) {
	p.T.Helper()
	n := p.WaitFor(role, name)
	if err := p.call(n, `function() { this.scrollIntoView({block: "center"}); this.focus(); }`, nil); err != nil {
		p.T.Fatalf("focus %s %q: %v", role, name, err)
	}
}

// Fill focuses the textbox (or combobox) of name, selects what it holds and
// types text over it, as a keyboard does.
func (p *Person) Fill(role, name, text string) {
	p.T.Helper()
	n := p.WaitFor(role, name)
	if err := p.call(n, `function() { this.scrollIntoView({block: "center"}); this.focus(); if (this.select) this.select(); }`, nil); err != nil {
		p.T.Fatalf("fill %s %q: %v", role, name, err)
	}
	p.Type(text)
}

// Type inserts text at the focus (input events, as typing gives).
func (p *Person) Type(text string) {
	p.T.Helper()
	if text == "" {
		p.Press("\b")
		return
	}
	if _, err := chromedp.Call(p.Ctx, input.InsertText, input.InsertTextParams{Text: text}); err != nil {
		p.T.Fatalf("type %q: %v", text, err)
	}
}

// Press sends keys to the focus ("\r" Enter, "j", "?", kb.Escape …).
func (p *Person) Press(keys string) {
	p.T.Helper()
	if err := chromedp.Do(p.Ctx, chromedp.KeyEvent(keys)); err != nil {
		p.T.Fatalf("press %q: %v", keys, err)
	}
}

// TextOf is the text content of the node of role and name.
func (p *Person) TextOf(role, name string) string {
	p.T.Helper()
	n := p.WaitFor(role, name)
	var s string
	if err := p.call(n, `function() { return this.innerText; }`, &s); err != nil {
		p.T.Fatalf("text of %s %q: %v", role, name, err)
	}
	return s
}

// WaitText waits until the node of role and name holds text.
func (p *Person) WaitText(role, name, text string) {
	p.T.Helper()
	deadline := time.Now().Add(Wait)
	for !strings.Contains(p.TextOf(role, name), text) {
		if time.Now().After(deadline) {
			p.Screenshot("failed-text-" + strings.ReplaceAll(name, " ", "_"))
			p.T.Fatalf("%s %q never held %q; it holds:\n%s", role, name, text, p.TextOf(role, name))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitNoText waits until the node of role and name no longer holds text
// (a list that a search or filter narrows).
func (p *Person) WaitNoText(role, name, text string) {
	p.T.Helper()
	deadline := time.Now().Add(Wait)
	for strings.Contains(p.TextOf(role, name), text) {
		if time.Now().After(deadline) {
			p.Screenshot("failed-no-text-" + strings.ReplaceAll(name, " ", "_"))
			p.T.Fatalf("%s %q still holds %q:\n%s", role, name, text, p.TextOf(role, name))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Text is the page's visible text.
func (p *Person) Text() string {
	var s string
	_ = p.eval(`document.body ? document.body.innerText : ""`, &s)
	return s
}

// Eval evaluates a JavaScript expression in the page into out.
func (p *Person) Eval(expr string, out any) {
	p.T.Helper()
	if err := p.eval(expr, out); err != nil {
		p.T.Fatalf("eval %s: %v", expr, err)
	}
}

func (p *Person) eval(expr string, out any) error {
	t := true
	res, err := chromedp.Call(p.Ctx, runtime.Evaluate, runtime.EvaluateParams{Expression: expr, ReturnByValue: &t, AwaitPromise: &t})
	if err != nil {
		return err
	}
	return decode(res.Result, res.ExceptionDetails, out)
}

// Screenshot keeps the page as testdata/artifacts/<name>.png.
func (p *Person) Screenshot(name string) {
	shot, err := chromedp.Run(p.Ctx, chromedp.CaptureScreenshot())
	if err != nil {
		p.T.Logf("screenshot %s: %v", name, err)
		return
	}
	keepArtifact(p.T, name+".png", shot)
}

func cdpBackend(id int64) cdp.BackendNodeID { return cdp.BackendNodeID(id) }

// decode reads a returned value into out, or the exception thrown.
func decode(v *runtime.RemoteObject, e *runtime.ExceptionDetails, out any) error {
	if e != nil {
		return fmt.Errorf("%s", exceptionText(e))
	}
	if out != nil && v != nil && len(v.Value) > 0 {
		return json.Unmarshal(v.Value, out)
	}
	return nil
}

func exceptionText(e *runtime.ExceptionDetails) string {
	if e.Exception != nil && e.Exception.Description != "" {
		return e.Exception.Description
	}
	return e.Text
}

// WaitTrue waits until the JavaScript expression is true in the page.
func (p *Person) WaitTrue(what, expr string) {
	p.T.Helper()
	deadline := time.Now().Add(Wait)
	for {
		var ok bool
		if err := p.eval(expr, &ok); err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			p.Screenshot("failed-" + strings.ReplaceAll(what, " ", "_"))
			p.T.Fatalf("%s: not so after %s; the page says:\n%s", what, Wait, p.Text())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// WaitLive waits until the app's socket is connected: the header's
// connection state says Live.
func (p *Person) WaitLive() {
	p.T.Helper()
	p.WaitTrue("the connection state Live", `[...document.querySelectorAll('[role=status]')].some(e => e.textContent.trim() === "Live")`)
}
