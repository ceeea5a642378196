package email_test

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/email"
)

// TestDisplayKeepsFormatting: the formatting real mail relies on (Outlook,
// Gmail, newsletters) survives the sanitiser.
func TestDisplayKeepsFormatting(t *testing.T) {
	d := email.Display{Inline: map[string]string{"logo@x": "msgsvc-file:file_1"}}
	for _, c := range []struct{ name, in, want string }{
		{"style colour", `<p style="color: #ff0000">x</p>`, `<p style="color: #ff0000">x</p>`},
		{"style background", `<p style="background-color:rgb(1, 2, 3)">x</p>`, `style="background-color: rgb(1, 2, 3)"`},
		{"style background shorthand", `<p style="background: #fff">x</p>`, `style="background: #fff"`},
		{"style font", `<span style="font-family: 'Segoe UI', Arial; font-size: 14px; font-weight: bold">x</span>`,
			`style="font-family: &#39;Segoe UI&#39;, Arial; font-size: 14px; font-weight: bold"`},
		{"style font shorthand", `<p style="font: italic 12px/1.5 Georgia, serif">x</p>`, `style="font: italic 12px/1.5 Georgia, serif"`},
		{"style text-align", `<p style="text-align:center">x</p>`, `style="text-align: center"`},
		{"style text-decoration", `<a href="https://x.test/" style="text-decoration:none">x</a>`, `style="text-decoration: none"`},
		{"style line-height", `<p style="line-height: 1.4">x</p>`, `style="line-height: 1.4"`},
		{"style margin", `<p style="margin: 0 0 10px 0; margin-top: 4px">x</p>`, `style="margin: 0 0 10px 0; margin-top: 4px"`},
		{"style padding", `<table><tr><td style="padding:8px 12px">x</td></tr></table>`, `style="padding: 8px 12px"`},
		{"style border", `<table style="border: 1px solid #ccc; border-collapse: collapse"><tr><td>x</td></tr></table>`,
			`style="border: 1px solid #ccc; border-collapse: collapse"`},
		{"style width", `<div style="width: 600px; max-width: 100%">x</div>`, `style="width: 600px; max-width: 100%"`},
		{"style vertical-align", `<table><tr><td style="vertical-align: top">x</td></tr></table>`, `style="vertical-align: top"`},
		{"style display", `<span style="display: none">preheader</span>`, `style="display: none"`},
		{"style important", `<p style="color: red !important">x</p>`, `style="color: red !important"`},
		{"class", `<p class="MsoNormal">x</p>`, `<p class="msgsvc-MsoNormal">x</p>`},
		{"font", `<font color="#333333" face="Arial, sans-serif" size="2">x</font>`,
			`<font color="#333333" face="Arial, sans-serif" size="2">x</font>`},
		{"center", `<center>x</center>`, `<center>x</center>`},
		{"align", `<p align="center">x</p><div align="right">y</div>`, `<p align="center">x</p><div align="right">y</div>`},
		{"table attributes", `<table width="600" border="0" cellpadding="4" cellspacing="0" bgcolor="#eeeeee" align="center"><tr><td>x</td></tr></table>`,
			`<table width="600" border="0" cellpadding="4" cellspacing="0" bgcolor="#eeeeee" align="center">`},
		{"cell attributes", `<table><tr valign="top"><td width="50%" height="20" bgcolor="white" align="left" valign="middle" colspan="2">x</td></tr></table>`,
			`<tr valign="top"><td width="50%" height="20" bgcolor="white" align="left" valign="middle" colspan="2">x</td>`},
		{"cid image", `<img src="cid:logo@x" alt="Logo" width="120">`, `<img src="msgsvc-file:file_1" alt="Logo" width="120"/>`},
		{"cid background", `<div style="background: url(cid:logo@x) no-repeat">x</div>`, `style="background: url(msgsvc-file:file_1) no-repeat"`},
		{"cid background-image", `<div style="background-image: url('cid:logo@x'); background-repeat: no-repeat">x</div>`,
			`style="background-image: url(msgsvc-file:file_1); background-repeat: no-repeat"`},
		{"data image", `<img src="data:image/png;base64,iVBORw0KGgo=">`, `<img src="data:image/png;base64,iVBORw0KGgo="/>`},
		{"link", `<a href="https://shop.test/o/1">order</a>`,
			`<a href="https://shop.test/o/1" target="_blank" rel="noopener noreferrer nofollow">order</a>`},
		{"mailto", `<a href="mailto:ada@example.com">mail</a>`, `<a href="mailto:ada@example.com">mail</a>`},
		{"lists", `<ol start="3"><li>a</li></ol><ul type="disc"><li>b</li></ul>`, `<ol start="3"><li>a</li></ol><ul type="disc"><li>b</li></ul>`},
		{"blockquote", `<blockquote style="border-left: 2px solid #ccc; padding-left: 8px">quoted</blockquote>`,
			`<blockquote style="border-left: 2px solid #ccc; padding-left: 8px">quoted</blockquote>`},
		{"headings and hr", `<h1>T</h1><hr width="80%" size="1">`, `<h1>T</h1><hr width="80%" size="1"/>`},
		{"pre and code", `<pre><code>a  b</code></pre>`, `<pre><code>a  b</code></pre>`},
	} {
		got, _ := d.Sanitize(c.in)
		if !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

func TestDisplayStyleBlocks(t *testing.T) {
	got, _ := email.Display{}.Sanitize(`<html><head><style>
body { background-color: #f4f4f4; margin: 0 }
.header, #top { color: #333; position: fixed; }
p.note { font-size: 12px; background: url(https://t.test/x.png) }
@media only screen and (max-width: 600px) { .col { width: 100% !important } }
@import url(https://evil.test/x.css);
@font-face { font-family: x; src: url(https://evil.test/f.woff) }
a[href^="http"] { color: red }
div { behavior: url(x.htc); -moz-binding: url(x.xml#y); width: expression(alert(1)); color: blue }
</style></head><body bgcolor="#ffffff"><p class="header note">x</p></body></html>`)
	for _, want := range []string{
		`<div class="msgsvc" style="background-color: #ffffff"><style>`,
		`.msgsvc { background-color: #f4f4f4; margin: 0; }`,
		`.msgsvc .msgsvc-header, .msgsvc #msgsvc-top { color: #333; }`,
		`@media only screen and (max-width: 600px) {` + "\n" + `.msgsvc .msgsvc-col { width: 100% !important; }`,
		`.msgsvc div { color: blue; }`,
		`<p class="msgsvc-header msgsvc-note">x</p></div>`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	for _, bad := range []string{"position", "url(", "@import", "font-face", "href", "behavior", "binding", "expression", "p.note"} {
		if strings.Contains(got, bad) {
			t.Errorf("kept %q:\n%s", bad, got)
		}
	}
	// Without <style> or body attributes there is no wrapper.
	if got, _ := (email.Display{}).Sanitize(`<p>x</p>`); got != `<p>x</p>` {
		t.Errorf("plain: %s", got)
	}
}

func TestDisplayRemovesDanger(t *testing.T) {
	d := email.Display{Inline: map[string]string{"a": "msgsvc-file:file_1"}}
	for _, c := range []struct{ name, in, want string }{
		{"script", `<p>a<script>alert(1)</script></p>`, `<p>a</p>`},
		{"handler", `<p onclick="x()" onmouseover=y>a</p>`, `<p>a</p>`},
		{"javascript link", `<a href="javascript:alert(1)">a</a>`, `<a>a</a>`},
		{"vbscript link", `<a href="vbscript:msgbox(1)">a</a>`, `<a>a</a>`},
		{"obfuscated javascript", `<a href="java&#x09;script:alert(1)">a</a>`, `<a>a</a>`},
		{"data link", `<a href="data:text/html;base64,PHNjcmlwdD4=">a</a>`, `<a>a</a>`},
		{"relative link", `<a href="/v1/account/delete">a</a>`, `<a>a</a>`},
		{"protocol-relative image", `<img src="//evil.test/x.png">`, `<img/>`},
		{"relative image", `<img src="logout">`, `<img/>`},
		{"data svg image", `<img src="data:image/svg+xml;base64,PHN2Zz4=">`, `<img/>`},
		{"big data image", `<img src="data:image/png;base64,` + strings.Repeat("A", email.MaxDataImage) + `">`, `<img/>`},
		{"unknown cid", `<img src="cid:other">`, `<img/>`},
		{"id clobbering", `<img id="createElement"><form name="location"><a name="x" id="y">z</a></form>`,
			`<img id="msgsvc-createElement"/><a id="msgsvc-y" name="msgsvc-x">z</a>`},
		{"bad id", `<p id="a b<">x</p>`, `<p>x</p>`},
		{"iframe", `<iframe src="https://x.test"></iframe>ok`, `ok`},
		{"form", `<form action="https://x.test"><input name=a><button>b</button>t</form>`, `bt`},
		{"meta refresh", `<meta http-equiv="refresh" content="0;url=https://x.test">ok`, `ok`},
		{"base", `<base href="https://evil.test/">ok`, `ok`},
		{"svg", `<svg><script>alert(1)</script></svg>ok`, `ok`},
		{"style url", `<p style="background-image: url(https://t.test/p.gif); color: red">x</p>`, `<p style="color: red">x</p>`},
		{"style expression", `<p style="width: expression(alert(1))">x</p>`, `<p>x</p>`},
		{"style escape", `<p style="width: e\xpression(alert(1))">x</p>`, `<p>x</p>`},
		{"style position", `<div style="position: fixed; top: 0">x</div>`, `<div>x</div>`},
		{"style behavior", `<div style="behavior: url(x.htc); -moz-binding: url(y)">x</div>`, `<div>x</div>`},
		{"display limited", `<div style="display: flex">x</div>`, `<div>x</div>`},
		{"comment", `<!-- <script>x</script> -->ok`, `ok`},
		{"mxss noscript", `<noscript><p title="</noscript><img src=x onerror=alert(1)>">`, `<img/>&#34;&gt;`},
	} {
		got, _ := d.Sanitize(c.in)
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
}

// HTML nested deeper than the parser reads is shown as its text.
func TestDisplayTooDeep(t *testing.T) {
	got, warns := email.Display{}.Sanitize(strings.Repeat("<div>", 1000) + "deep <script>x</script>words")
	if got != "<p>deep words</p>" || len(warns) != 1 || warns[0].Code != email.WarnHTMLAsText {
		t.Errorf("%q %v", got, warns)
	}
}

func TestDisplayRemoteImages(t *testing.T) {
	in := `<img src="https://track.test/p.gif?u=1" alt="x"><img src="http://cdn.test/a.png">`
	got, warns := email.Display{}.Sanitize(in)
	if got != `<img `+email.RemoteSrcAttr+`="https://track.test/p.gif?u=1" alt="x"/><img `+email.RemoteSrcAttr+`="http://cdn.test/a.png"/>` {
		t.Errorf("blocked: %s", got)
	}
	if len(warns) != 1 || warns[0].Code != email.WarnRemoteImages || !strings.Contains(warns[0].Detail, "2 remote images") {
		t.Errorf("warnings %v", warns)
	}
	got, warns = email.Display{RemoteImages: email.RemoteImagesAllow}.Sanitize(in)
	if got != `<img src="https://track.test/p.gif?u=1" alt="x"/><img src="http://cdn.test/a.png"/>` || len(warns) != 0 {
		t.Errorf("allowed: %s %v", got, warns)
	}
	got, warns = email.Display{RemoteImages: email.RemoteImagesProxy}.Sanitize(in + `<a href="https://x.test/">l</a>`)
	if got != `<img src="msgsvc-image:https://track.test/p.gif?u=1" alt="x"/><img src="msgsvc-image:http://cdn.test/a.png"/>`+
		`<a href="https://x.test/" target="_blank" rel="noopener noreferrer nofollow">l</a>` || len(warns) != 0 {
		t.Errorf("proxied: %s %v", got, warns)
	}
}
