// The reply box: Enter sends, Shift+Enter a new line; a private note mode;
// the channel's rules shown before sending (window, templates, opt-outs,
// email from and to); the agent's typing reaches the widget; a reply typed
// across a new customer message or another agent's reply asks once.
import { useEffect, useRef, useState } from "preact/hooks";
import { mutate, errorMessage, session } from "../api";
import { REPLY, ADD_NOTE, PRESENCE_SET, type Conv, type Msg, type Note } from "./queries";
import { Templates } from "./templates";
import type { Presence } from "./conversation";

interface Props {
  conv: Conv; rules: any; arrivals: number; others: Presence[];
  onSent: (m: Msg) => void; onNote: (n: Note) => void;
}

export function Composer({ conv, rules, arrivals, others, onSent, onNote }: Props) {
  const me = session.value!.member;
  const [mode, setMode] = useState<"reply" | "note">("reply");
  const [text, setText] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [ask, setAsk] = useState(false);
  const seen = useRef(arrivals);
  const box = useRef<HTMLTextAreaElement>(null);
  const lastTyping = useRef(0);
  const idle = useRef<number>(0);

  // The draft starts: what arrived before it is seen.
  useEffect(() => { if (!text) seen.current = arrivals; }, [text, arrivals]);

  useEffect(() => {
    const compose = (e: Event) => {
      setMode((e as CustomEvent).detail === "note" ? "note" : "reply");
      setTimeout(() => box.current?.focus());
    };
    document.addEventListener("inbox:compose", compose);
    return () => document.removeEventListener("inbox:compose", compose);
  }, []);

  function typing(now: boolean) {
    if (mode !== "reply") return;
    mutate(PRESENCE_SET, { id: conv.id, typing: now, viewing: true });
  }
  function onInput(v: string) {
    setText(v); setAsk(false);
    const now = Date.now();
    if (v && now - lastTyping.current > 3000) { lastTyping.current = now; typing(true); }
    clearTimeout(idle.current);
    idle.current = setTimeout(() => { lastTyping.current = 0; typing(false); }, 5000) as unknown as number;
  }

  async function send() {
    const t = text.trim();
    if (!t || busy) return;
    if (mode === "reply" && arrivals > seen.current) {
      seen.current = arrivals;
      setAsk(true);
      return;
    }
    setBusy(true); setError(""); setAsk(false);
    if (mode === "note") {
      const r = await mutate(ADD_NOTE, { id: conv.id, text: t });
      setBusy(false);
      if (r.error) { setError(errorMessage(r.error)); return; }
      onNote(r.data.addNote);
    } else {
      const r = await mutate(REPLY, { id: conv.id, agent: me.id, text: t });
      setBusy(false);
      if (r.error) { setError(errorMessage(r.error)); return; }
      onSent(r.data.agentReply);
      clearTimeout(idle.current); lastTyping.current = 0; typing(false);
    }
    setText("");
  }

  function onKey(e: KeyboardEvent) {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) { e.preventDefault(); send(); }
    if (e.key === "Escape") { (e.currentTarget as HTMLElement).blur(); }
  }

  const label = mode === "reply" ? "Reply" : "Note";
  const othersTyping = others.filter((o) => o.typing).map((o) => o.name);
  return (
    <div class={`composer ${mode}`}>
      {mode === "reply" && <Rules rules={rules} conv={conv} onSent={onSent} />}
      <div class="row">
        <label class="switch">
          <input type="checkbox" role="switch" checked={mode === "note"} aria-keyshortcuts="n"
            onChange={(e) => setMode(e.currentTarget.checked ? "note" : "reply")} />
          Private note
        </label>
        {mode === "note" && <span class="muted">Seen by members only; never sent to the customer.</span>}
      </div>
      <form class="compose-row" onSubmit={(e) => { e.preventDefault(); send(); }}>
        <label for={`compose-${conv.id}`} class="sr-only">{label}</label>
        <textarea id={`compose-${conv.id}`} ref={box} rows={3} value={text} aria-keyshortcuts={mode === "reply" ? "r" : "n"}
          placeholder={mode === "reply" ? "Write a reply (Enter sends, Shift+Enter for a new line)" : "Write a private note"}
          onInput={(e) => onInput(e.currentTarget.value)} onKeyDown={onKey}
          aria-describedby={ask ? `ask-${conv.id}` : undefined} />
        <button type="submit" class="primary" disabled={busy || !text.trim()}>Send</button>
      </form>
      {othersTyping.length > 0 && mode === "reply" && <p class="muted">{othersTyping.join(", ")} {othersTyping.length > 1 ? "are" : "is"} writing too.</p>}
      {ask && <p role="alert" id={`ask-${conv.id}`} class="warn">A new message arrived while you were writing. Read it; send again to send your reply as it is.</p>}
      {error && <p role="alert" class="error">{error}</p>}
    </div>
  );
}

function Rules({ rules, conv, onSent }: { rules: any; conv: Conv; onSent: (m: Msg) => void }) {
  if (!rules) return null;
  const lines = [];
  const w = rules.window;
  if (rules.email) {
    lines.push(<p>From <strong>{rules.email.from}</strong> to <strong>{rules.email.to.join(", ")}</strong>
      {rules.email.cc?.length ? <>, cc {rules.email.cc.join(", ")}</> : null}{rules.email.subject ? <> · {rules.email.subject}</> : null}</p>);
  }
  if (conv.channel === "whatsapp" && w) {
    lines.push(w.open
      ? <p>WhatsApp's 24-hour window is open{w.freeTextUntil ? ` until ${new Date(w.freeTextUntil).toLocaleString()}` : ""}.</p>
      : <p class="warn">WhatsApp's 24-hour window is closed: only an approved template can go out.</p>);
  }
  if (conv.channel === "instagram" && w) {
    lines.push(w.open
      ? <p>Instagram's messaging window is open{w.freeTextUntil ? ` until ${new Date(w.freeTextUntil).toLocaleString()}` : ""}.</p>
      : rules.humanAgentUntil
        ? <p class="warn">Instagram's 24-hour window is closed; a person may still reply until {new Date(rules.humanAgentUntil).toLocaleString()}.</p>
        : <p class="warn">Instagram's messaging window is closed.</p>);
  }
  if (rules.optedOut) lines.push(<p class="warn">The customer opted out of this channel.</p>);
  if (rules.suppressed) lines.push(<p class="warn">This address is suppressed (it bounced or complained).</p>);
  if (!rules.canReply && rules.refusal) lines.push(<p class="warn">{rules.refusal.message}</p>);
  return (
    <div class="rules" aria-label="Before you send" role="group">
      {lines}
      {rules.templates?.length > 0 && !w?.open && <Templates conv={conv} templates={rules.templates} onSent={onSent} />}
    </div>
  );
}
