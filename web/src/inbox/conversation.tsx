// One open conversation: its header and actions, the log Messages (with the
// private notes), the reply box with the channel's rules, presence, and the
// contact sidebar. Live over the socket; reloaded after a reconnect.
import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { query, mutate, errorMessage, onResync, session } from "../api";
import { useLive } from "../live";
import {
  CONVERSATION, MESSAGES, MESSAGE_BY_ID, NOTES, RULES, EVENTS, PRESENCE, VISITOR_TYPING, NOTE_ADDED, MARK_READ, PRESENCE_SET,
  type Conv, type Msg, type Note,
} from "./queries";
import { MessageView, NoteView } from "./message";
import { Virtual } from "./virtual";
import { Actions } from "./actions";
import { Composer } from "./composer";
import { Sidebar } from "./sidebar";
import { markReadLocally, reloadCounts } from "./state";

type Entry = { kind: "m"; at: string; id: string; m: Msg } | { kind: "n"; at: string; id: string; n: Note };

export interface Presence { id: string; name: string; typing: boolean; until: number }

export function Conversation({ id }: { id: string }) {
  const me = session.value!.member;
  const [conv, setConv] = useState<Conv | null>(null);
  const [error, setError] = useState("");
  const [msgs, setMsgs] = useState<Map<string, Msg>>(new Map());
  const [notes, setNotes] = useState<Map<string, Note>>(new Map());
  const [loadingMore, setLoadingMore] = useState(false);
  const [rules, setRules] = useState<any>(null);
  const [others, setOthers] = useState<Presence[]>([]);
  const [visitorTyping, setVisitorTyping] = useState(0);
  // arrivals counts customer messages and other people's replies since the
  // page opened: the composer asks once before sending across a new one.
  const [arrivals, setArrivals] = useState(0);
  const alive = useRef(true);
  const [follow, setFollow] = useState(0);

  async function loadConv() {
    const r = await query(CONVERSATION, { id });
    if (!alive.current) return;
    if (r.error) { setError(errorMessage(r.error)); return; }
    setConv(r.data.conversation);
  }
  async function loadRules() {
    const r = await query(RULES, { id });
    if (alive.current) setRules(r.data?.replyRules ?? null);
  }
  // older is the cursor of the next older page (null: none left); loading
  // guards against asking twice while the reader scrolls.
  const older = useRef<string | null>(null);
  const loading = useRef(false);
  async function loadMessages() {
    loading.current = true;
    setLoadingMore(true);
    const r: any = await query(MESSAGES, { id, after: null });
    loading.current = false;
    if (!alive.current) return;
    setLoadingMore(false);
    if (r.error) { setError(errorMessage(r.error)); return; }
    const page = new Map<string, Msg>(r.data.messages.items.map((m: Msg) => [m.id, m]));
    older.current = r.data.messages.hasMore ? r.data.messages.nextCursor : null;
    setMsgs((old) => mergeLive(old, page));
  }
  async function loadOlder() {
    if (loading.current || !older.current) return;
    loading.current = true;
    setLoadingMore(true);
    const r: any = await query(MESSAGES, { id, after: older.current });
    loading.current = false;
    if (!alive.current) return;
    setLoadingMore(false);
    if (r.error) { setError(errorMessage(r.error)); return; }
    older.current = r.data.messages.hasMore ? r.data.messages.nextCursor : null;
    setMsgs((old) => {
      const next = new Map(old);
      for (const m of r.data.messages.items) next.set(m.id, m);
      return next;
    });
  }
  async function loadNotes() {
    const r = await query(NOTES, { id, after: null });
    if (alive.current && r.data) setNotes(new Map(r.data.notes.items.map((n: Note) => [n.id, n])));
  }
  async function markRead() {
    if (document.hidden) return;
    markReadLocally(id);
    await mutate(MARK_READ, { id });
    reloadCounts();
  }
  function loadAll() { loadConv(); loadMessages(); loadNotes(); loadRules(); }

  useEffect(() => {
    alive.current = true;
    loadAll();
    markRead();
    const off = onResync(loadAll);
    const beat = () => mutate(PRESENCE_SET, { id, typing: false, viewing: true });
    beat();
    const t = setInterval(beat, 10_000);
    const expire = setInterval(() => setOthers((o) => o.filter((p) => p.until > Date.now())), 2_000);
    const vis = () => { if (!document.hidden) markRead(); };
    document.addEventListener("visibilitychange", vis);
    return () => {
      alive.current = false;
      off(); clearInterval(t); clearInterval(expire);
      document.removeEventListener("visibilitychange", vis);
      mutate(PRESENCE_SET, { id, typing: false, viewing: false });
    };
  }, [id]);

  useLive<{ conversationEvents: any }>(EVENTS, { id }, async (d) => {
    const e = d.conversationEvents;
    const data = e.data ?? {};
    if (e.type.startsWith("message.")) {
      const mid = data.message?.id ?? data.id;
      if (!mid) return;
      const r = await query(MESSAGE_BY_ID, { id: mid });
      const m: Msg | undefined = r.data?.message;
      if (!m || !alive.current) return;
      setMsgs((old) => {
        const fresh = !old.has(m.id);
        const next = new Map(old);
        next.set(m.id, m);
        const mine = m.direction === "outbound" && m.sender?.type === "agent" && m.sender?.name === me.name;
        if (fresh && !mine && (m.direction === "inbound" || m.sender?.type === "agent")) setArrivals((a) => a + 1);
        return next;
      });
      if (m.direction === "inbound") { markRead(); loadRules(); setVisitorTyping(0); }
    } else if (e.type.startsWith("conversation.")) {
      loadConv(); loadRules();
    } else if (e.type.startsWith("contact.")) {
      loadConv(); loadRules();
    }
  });
  useLive<{ conversationNotes: Note }>(NOTE_ADDED, { id }, (d) => {
    setNotes((old) => new Map(old).set(d.conversationNotes.id, d.conversationNotes));
  });
  useLive<{ conversationPresence: any }>(PRESENCE, { id }, (d) => {
    const p = d.conversationPresence;
    if (p.member.id === me.id) return;
    setOthers((old) => {
      const rest = old.filter((o) => o.id !== p.member.id);
      if (!p.viewing) return rest;
      return [...rest, { id: p.member.id, name: p.member.name, typing: p.typing, until: new Date(p.expiresAt).getTime() || Date.now() + 15_000 }];
    });
  });
  useLive<{ visitorTyping: any }>(VISITOR_TYPING, { id }, () => setVisitorTyping(Date.now()));
  useEffect(() => {
    if (!visitorTyping) return;
    const t = setTimeout(() => setVisitorTyping(0), 6_000);
    return () => clearTimeout(t);
  }, [visitorTyping]);

  const entries = useMemo(() => {
    const out: Entry[] = [];
    msgs.forEach((m) => out.push({ kind: "m", at: m.createdAt, id: m.id, m }));
    notes.forEach((n) => out.push({ kind: "n", at: n.createdAt, id: n.id, n }));
    return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : 1));
  }, [msgs, notes]);

  if (error && !conv) return <p role="alert" class="error page">{error}</p>;
  if (!conv) return <p role="status" class="page">Loading…</p>;

  const name = conv.contact.name || conv.contact.email || conv.contact.phone || "Unknown";
  const typingNow = others.filter((o) => o.typing);

  return (
    <div class="conversation">
      <div class="conv-main">
        <header class="conv-head">
          <h2>{name}</h2>
          <p class="muted">{conv.channel} · {conv.status} · {modeText(conv.mode)}{conv.subject ? ` · ${conv.subject}` : ""}</p>
          <Actions conv={conv} onChange={(c) => { setConv(c); loadRules(); }} />
        </header>
        {error && <p role="alert" class="error">{error}</p>}
        <Virtual items={entries} keyOf={(e) => e.kind + e.id} role="log" label="Messages" class="log" stickToBottom follow={follow} onReachTop={loadOlder}
          render={(e) => (e.kind === "m" ? <MessageView m={e.m} quoted={e.m.replyTo?.messageId ? msgs.get(e.m.replyTo.messageId) : undefined} /> : <NoteView n={e.n} />)} />
        <p class="presence" role="status">
          {loadingMore ? "Loading messages… " : ""}
          {others.length > 0 && `${others.map((o) => o.name).join(", ")} ${others.length > 1 ? "are" : "is"} viewing. `}
          {typingNow.length > 0 && `${typingNow.map((o) => o.name).join(", ")} ${typingNow.length > 1 ? "are" : "is"} typing… `}
          {visitorTyping ? `${name} is typing…` : ""}
        </p>
        <Composer conv={conv} rules={rules} arrivals={arrivals} others={others}
          onSent={(m) => { setMsgs((old) => new Map(old).set(m.id, m)); setFollow((f) => f + 1); loadRules(); }}
          onNote={(n) => { setNotes((old) => new Map(old).set(n.id, n)); setFollow((f) => f + 1); }} />
      </div>
      <Sidebar conv={conv} />
    </div>
  );
}

/** mergeLive is the loaded pages with the messages that arrived live
 * meanwhile (a page may not have them yet). */
function mergeLive(old: Map<string, Msg>, loaded: Map<string, Msg>): Map<string, Msg> {
  const next = new Map(loaded);
  old.forEach((m, id) => { if (!next.has(id) && m.createdAt >= lastAt(loaded)) next.set(id, m); });
  return next;
}

function lastAt(m: Map<string, Msg>): string {
  let at = "";
  m.forEach((x) => { if (x.createdAt > at) at = x.createdAt; });
  return at;
}

function modeText(mode: string) {
  return ({ ai: "AI answering", human: "a person answering", external: "an integration answering" } as Record<string, string>)[mode] ?? mode;
}
