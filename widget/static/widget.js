/* msgsvc website chat widget (docs/widget.md). No framework; everything
 * lives in a shadow root so the host page's CSS cannot reach it. Text is only
 * ever set through textContent, never parsed as HTML.
 *
 * Embed: <script src="https://chat.example.com/widget.js" data-website="web_demo" async></script>
 * Verified users (optional): window.msgsvcSettings = {user_id, user_hash, name, email}
 * set before the script loads; user_hash = hex(HMAC-SHA256(identity_secret, user_id)).
 *
 * An error the API answers is shown in the chat and logged to the console
 * with its code; a refusal (4xx other than 429) is not retried, since
 * retrying cannot change it (a wrong data-website, a page origin the website
 * does not list).
 */
(function () {
  "use strict";
  var script = document.currentScript || document.querySelector("script[data-website]");
  if (!script || window.__msgsvcWidget) return;
  window.__msgsvcWidget = true;
  var websiteID = script.getAttribute("data-website");
  var base = new URL(script.src, location.href).origin;
  var storeKey = "msgsvc:visitor:" + websiteID;
  var settings = window.msgsvcSettings || {};

  var state = {
    token: null, conversation: null, open: false, unread: 0, ws: null, retry: 0,
    seen: {}, readSent: {}, lastTyping: 0, typingTimer: null, connecting: false
  };

  // ---- DOM ----------------------------------------------------------------
  var host = document.createElement("div");
  host.id = "msgsvc-widget";
  var root = host.attachShadow({ mode: "open" });
  var css = [
    ":host{all:initial}",
    "*{box-sizing:border-box;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;font-size:14px}",
    ".launcher{position:fixed;right:20px;bottom:20px;width:56px;height:56px;border-radius:50%;border:0;",
    "background:var(--c,#0a7cff);color:#fff;cursor:pointer;box-shadow:0 4px 12px rgba(0,0,0,.25);z-index:2147483646}",
    ".launcher:focus-visible,button:focus-visible,textarea:focus-visible{outline:3px solid #ffbf47;outline-offset:2px}",
    ".launcher svg{width:28px;height:28px;fill:#fff}",
    ".badge{position:absolute;top:-4px;right:-4px;min-width:20px;height:20px;padding:0 5px;border-radius:10px;",
    "background:#d4351c;color:#fff;font-size:12px;line-height:20px;text-align:center}",
    ".badge[hidden]{display:none}",
    ".panel{position:fixed;right:20px;bottom:88px;width:360px;max-width:calc(100vw - 40px);height:520px;",
    "max-height:calc(100vh - 120px);display:flex;flex-direction:column;background:#fff;color:#111;border-radius:12px;",
    "box-shadow:0 8px 30px rgba(0,0,0,.3);overflow:hidden;z-index:2147483647}",
    ".panel[hidden]{display:none}",
    "header{background:var(--c,#0a7cff);color:#fff;padding:12px 14px;display:flex;align-items:center;justify-content:space-between}",
    "header h2{margin:0;font-size:16px;font-weight:600}",
    "header button{background:transparent;border:0;color:#fff;font-size:22px;cursor:pointer;line-height:1}",
    ".log{flex:1;overflow-y:auto;padding:12px;display:flex;flex-direction:column;gap:8px;background:#f6f7f9}",
    ".msg{max-width:80%;padding:8px 11px;border-radius:12px;white-space:pre-wrap;word-wrap:break-word}",
    ".msg.in{align-self:flex-end;background:var(--c,#0a7cff);color:#fff}",
    ".msg.out{align-self:flex-start;background:#fff;border:1px solid #dde1e6}",
    ".msg.note{align-self:center;background:transparent;color:#555;font-style:italic}",
    ".typing{padding:0 12px 6px;color:#555;font-size:12px;min-height:18px;background:#f6f7f9}",
    "form{display:flex;gap:8px;padding:10px;border-top:1px solid #dde1e6}",
    "textarea{flex:1;resize:none;height:40px;padding:9px;border:1px solid #b1b4b6;border-radius:8px}",
    "form button,.rate button{background:var(--c,#0a7cff);color:#fff;border:0;border-radius:8px;padding:0 14px;cursor:pointer}",
    ".rate{padding:10px;border-top:1px solid #dde1e6;display:flex;flex-direction:column;gap:8px}",
    ".rate[hidden]{display:none}",
    ".stars{display:flex;gap:6px}.stars button{width:40px;height:36px;padding:0}",
    ".stars button[aria-pressed=true]{outline:3px solid #111}",
    ".sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}"
  ].join("");
  var style = document.createElement("style");
  style.textContent = css;
  root.appendChild(style);

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    for (var k in attrs) if (Object.prototype.hasOwnProperty.call(attrs, k)) e.setAttribute(k, attrs[k]);
    if (text != null) e.textContent = text;
    return e;
  }

  var launcher = el("button", { "class": "launcher", type: "button", "aria-label": "Open chat",
    "aria-expanded": "false", "aria-controls": "msgsvc-panel" });
  var svgNS = "http://www.w3.org/2000/svg";
  var icon = document.createElementNS(svgNS, "svg");
  icon.setAttribute("viewBox", "0 0 24 24");
  icon.setAttribute("aria-hidden", "true");
  var path = document.createElementNS(svgNS, "path");
  path.setAttribute("d", "M4 4h16v12H7l-3 3z");
  icon.appendChild(path);
  launcher.appendChild(icon);
  var badge = el("span", { "class": "badge", hidden: "", "aria-hidden": "true" });
  launcher.appendChild(badge);

  var panel = el("div", { "class": "panel", id: "msgsvc-panel", role: "dialog", "aria-label": "Chat", hidden: "" });
  var header = el("header");
  var title = el("h2", { id: "msgsvc-title" }, "Chat with us");
  var closeBtn = el("button", { type: "button", "class": "close", "aria-label": "Close chat" }, "\u00d7");
  header.appendChild(title);
  header.appendChild(closeBtn);
  var log = el("div", { "class": "log", role: "log", "aria-live": "polite", "aria-label": "Messages" });
  var typing = el("div", { "class": "typing", "aria-live": "polite" });
  var form = el("form");
  var label = el("label", { "for": "msgsvc-input", "class": "sr" }, "Your message");
  var input = el("textarea", { id: "msgsvc-input", name: "text", maxlength: "4096", placeholder: "Write a message\u2026" });
  var send = el("button", { type: "submit", "class": "send" }, "Send");
  form.appendChild(label);
  form.appendChild(input);
  form.appendChild(send);

  var rate = el("div", { "class": "rate", hidden: "", role: "group", "aria-label": "Rate this chat" });
  var rateText = el("p", { style: "margin:0" }, "How was this chat?");
  var stars = el("div", { "class": "stars" });
  var score = 0;
  for (var i = 1; i <= 5; i++) {
    (function (n) {
      var b = el("button", { type: "button", "aria-label": n + " of 5", "aria-pressed": "false", "data-score": String(n) }, String(n));
      b.addEventListener("click", function () {
        score = n;
        Array.prototype.forEach.call(stars.children, function (s) { s.setAttribute("aria-pressed", String(s === b)); });
      });
      stars.appendChild(b);
    })(i);
  }
  var comment = el("textarea", { "aria-label": "Comment (optional)", maxlength: "4096", placeholder: "Comment (optional)" });
  var rateSend = el("button", { type: "button", "class": "rate-send" }, "Send rating");
  rate.appendChild(rateText);
  rate.appendChild(stars);
  rate.appendChild(comment);
  rate.appendChild(rateSend);

  panel.appendChild(header);
  panel.appendChild(log);
  panel.appendChild(typing);
  panel.appendChild(rate);
  panel.appendChild(form);
  root.appendChild(launcher);
  root.appendChild(panel);

  // ---- rendering ----------------------------------------------------------
  function note(text) {
    log.appendChild(el("div", { "class": "msg note" }, text));
    log.scrollTop = log.scrollHeight;
  }

  function render(m) {
    if (!m || !m.id || state.seen[m.id]) return;
    state.seen[m.id] = true;
    var mine = m.direction === "inbound";
    var div = el("div", { "class": "msg " + (mine ? "in" : "out"), "data-id": m.id });
    var who = mine ? "You" : ((m.sender && m.sender.name) || "Support");
    div.appendChild(el("span", { "class": "sr" }, who + ": "));
    div.appendChild(document.createTextNode(m.text || ""));
    (m.attachments || []).forEach(function (a) {
      if (!/^https?:\/\//.test(a.url || "")) return;
      div.appendChild(document.createElement("br"));
      var link = el("a", { href: a.url, target: "_blank", rel: "noopener noreferrer" }, a.filename || "attachment");
      div.appendChild(link);
    });
    log.appendChild(div);
    log.scrollTop = log.scrollHeight;
    if (!mine) {
      if (state.open && !document.hidden) markRead(m.id);
      else { state.unread++; showBadge(); }
    }
  }

  function showBadge() {
    badge.textContent = state.unread > 9 ? "9+" : String(state.unread);
    if (state.unread > 0) badge.removeAttribute("hidden"); else badge.setAttribute("hidden", "");
    launcher.setAttribute("aria-label", state.unread > 0 ? "Open chat, " + state.unread + " unread" : "Open chat");
  }

  function markRead(id) {
    if (state.readSent[id]) return;
    if (state.ws && state.ws.readyState === 1) {
      state.readSent[id] = true;
      state.ws.send(JSON.stringify({ type: "read", message_id: id }));
    }
  }

  function readAll() {
    Array.prototype.forEach.call(log.querySelectorAll(".msg.out[data-id]"), function (d) { markRead(d.getAttribute("data-id")); });
    state.unread = 0;
    showBadge();
  }

  function showRating(conv) {
    state.conversation = conv;
    if (conv && conv.status === "closed" && conv.rating_requested && !conv.rated) rate.removeAttribute("hidden");
    else rate.setAttribute("hidden", "");
  }

  // ---- open and close -----------------------------------------------------
  function setOpen(open) {
    state.open = open;
    launcher.setAttribute("aria-expanded", String(open));
    if (open) {
      panel.removeAttribute("hidden");
      input.focus();
      readAll();
    } else {
      panel.setAttribute("hidden", "");
      launcher.focus();
    }
  }
  launcher.addEventListener("click", function () { setOpen(!state.open); });
  closeBtn.addEventListener("click", function () { setOpen(false); });
  panel.addEventListener("keydown", function (e) { if (e.key === "Escape") setOpen(false); });
  document.addEventListener("visibilitychange", function () { if (state.open && !document.hidden) readAll(); });

  // ---- the visitor API ----------------------------------------------------
  function api(method, path, body) {
    var headers = { "Content-Type": "application/json" };
    if (state.token) headers.Authorization = "Visitor " + state.token;
    return fetch(base + path, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined, mode: "cors" })
      .then(function (res) {
        return res.json().catch(function () { return {}; }).then(function (j) {
          if (!res.ok) {
            var err = new Error((j.error && j.error.message) || ("HTTP " + res.status));
            err.status = res.status;
            err.code = (j.error && j.error.code) || "";
            throw err;
          }
          return j.data;
        });
      });
  }

  function session() {
    var body = { website_id: websiteID };
    var saved = null;
    try { saved = localStorage.getItem(storeKey); } catch (e) { /* storage blocked */ }
    if (saved) body.visitor_token = saved;
    ["user_id", "user_hash", "name", "email"].forEach(function (k) { if (settings[k]) body[k] = String(settings[k]); });
    return api("POST", "/widget/v1/sessions", body).then(function (s) {
      state.token = s.visitor_token;
      try { localStorage.setItem(storeKey, s.visitor_token); } catch (e) { /* storage blocked */ }
      if (s.widget && /^#[0-9a-fA-F]{3,8}$/.test(s.widget.color || "")) host.style.setProperty("--c", s.widget.color);
      if (!state.greeted && s.widget && s.widget.greeting) { state.greeted = true; note(s.widget.greeting); }
      (s.messages || []).forEach(render);
      showRating(s.conversation);
      return s;
    });
  }

  // problem shows an API error in the chat and the console: its message and
  // code, which say what to fix.
  function problem(what, err) {
    var text = what + ": " + err.message + (err.code ? " (" + err.code + ")" : "");
    if (window.console && console.error) console.error("msgsvc widget: " + text);
    note(text);
  }

  // final: a refusal retrying cannot change (4xx other than 408 and 429).
  function final(err) {
    return err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429;
  }

  function connect() {
    if (state.connecting) return;
    state.connecting = true;
    session().then(function () {
      var ws = new WebSocket(base.replace(/^http/, "ws") + "/widget/v1/ws?token=" + encodeURIComponent(state.token));
      state.ws = ws;
      ws.onopen = function () { state.retry = 0; state.connecting = false; if (state.open) readAll(); };
      ws.onmessage = function (ev) {
        var f;
        try { f = JSON.parse(ev.data); } catch (e) { return; }
        if (f.type === "message") { typing.textContent = ""; render(f.message); }
        else if (f.type === "typing") {
          typing.textContent = "Support is typing\u2026";
          clearTimeout(state.typingTimer);
          state.typingTimer = setTimeout(function () { typing.textContent = ""; }, 4000);
        } else if (f.type === "conversation" && f.status === "closed") {
          note("This chat has ended.");
          showRating({ id: f.conversation_id, status: "closed", rating_requested: !!f.rating_requested, rated: !f.rating_requested });
        }
      };
      ws.onclose = function () { state.ws = null; state.connecting = false; reconnect(); };
    }).catch(function (err) {
      state.connecting = false;
      if (err && final(err)) { problem("The chat could not start", err); return; }
      reconnect();
    });
  }

  function reconnect() {
    var wait = Math.min(30000, 1000 * Math.pow(2, state.retry++)) * (0.75 + Math.random() / 2);
    setTimeout(connect, wait);
  }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var text = input.value;
    if (!text.trim()) return;
    send.disabled = true;
    api("POST", "/widget/v1/messages", { text: text }).then(function (m) {
      input.value = "";
      render(m);
      showRating(null);
    }).catch(function (err) {
      if (err.status === 429) note("You are sending messages too fast; please wait a moment.");
      else problem("Your message could not be sent", err);
    }).then(function () { send.disabled = false; input.focus(); });
  });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit ? form.requestSubmit() : send.click(); }
  });
  input.addEventListener("input", function () {
    var now = Date.now();
    if (state.ws && state.ws.readyState === 1 && now - state.lastTyping > 2000) {
      state.lastTyping = now;
      state.ws.send(JSON.stringify({ type: "typing" }));
    }
  });
  rateSend.addEventListener("click", function () {
    if (!score || !state.conversation) { note("Choose a score from 1 to 5."); return; }
    api("POST", "/widget/v1/rating", { conversation_id: state.conversation.id, score: score, comment: comment.value || undefined })
      .then(function () { rate.setAttribute("hidden", ""); note("Thank you for your rating."); })
      .catch(function (err) { note(err.message); });
  });

  function start() {
    document.body.appendChild(host);
    connect();
  }
  if (document.body) start(); else document.addEventListener("DOMContentLoaded", start);
})();
