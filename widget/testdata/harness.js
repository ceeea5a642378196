// Runs static/widget.js in Node with the least DOM it needs and a fetch that
// answers every request with one status and body; prints what the page and
// the console showed. Used by script_test.go.
"use strict";
const fs = require("fs");
const [, , file, status, body] = process.argv;
const created = [];
function node(tag) {
  const e = {
    tag, attrs: {}, children: [], listeners: {}, style: { setProperty() {} }, scrollTop: 0, scrollHeight: 0,
    get textContent() { return this._text != null ? this._text : this.children.map((c) => c.textContent).join(""); },
    set textContent(v) { this._text = String(v); },
    setAttribute(k, v) { this.attrs[k] = String(v); }, getAttribute(k) { return this.attrs[k]; },
    removeAttribute(k) { delete this.attrs[k]; }, appendChild(c) { this.children.push(c); return c; },
    addEventListener(t, f) { this.listeners[t] = f; }, attachShadow() { return node("#shadow"); },
    querySelectorAll() { return []; }, focus() {},
  };
  created.push(e);
  return e;
}
const out = { fetches: [], timers: 0, notes: [], errors: [] };
global.window = global;
global.location = { href: "http://page.test/" };
global.localStorage = { getItem() { return null; }, setItem() {} };
global.document = {
  currentScript: { src: "http://api.test/widget.js", getAttribute: () => "web_nope" },
  body: node("body"), hidden: false,
  createElement: node, createElementNS: (_, tag) => node(tag), createTextNode: (t) => ({ textContent: t }),
  addEventListener() {}, querySelector() { return null; },
};
global.setTimeout = () => { out.timers++; return 0; };
global.clearTimeout = () => {};
global.console.error = (...a) => { out.errors.push(a.join(" ")); };
global.fetch = (url, init) => {
  out.fetches.push(init.method + " " + url);
  return Promise.resolve({ ok: +status < 300, status: +status, json: () => Promise.resolve(JSON.parse(body)) });
};
global.WebSocket = function () { throw new Error("no WebSocket expected"); };
new Function(fs.readFileSync(file, "utf8"))();
setImmediate(() => setImmediate(() => {
  out.notes = created.filter((e) => e.attrs.class === "msg note").map((e) => e.textContent);
  process.stdout.write(JSON.stringify(out));
}));
