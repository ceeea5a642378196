// The agent inbox: views with unread counts, filters, the list
// Conversations (cursor pages, infinite scroll), the open conversation, the
// shortcuts, the unread count in the title and desktop notifications.
import { useEffect, useRef, useState } from "preact/hooks";
import { onResync, session } from "../api";
import { navigate } from "../router";
import { useLive } from "../live";
import { EVENTS } from "./queries";
import { VIEWS, view, filters, items, hasMore, loading, listError, counts, reload, more, reloadCounts, unreadTotal, type View } from "./state";
import { Conversation } from "./conversation";
import { Shortcuts } from "./shortcuts";

export function Inbox({ conversationId }: { conversationId?: string }) {
  const [help, setHelp] = useState(false);
  const me = session.value!.member;

  useEffect(() => { reload(); }, [view.value, filters.value]);
  useEffect(() => { reloadCounts(); return onResync(() => { reload(true); reloadCounts(); }); }, []);

  // Live: any event of the workspace reloads the list's first rows and the
  // counts (debounced), and may notify.
  const timer = useRef<number>(0);
  useLive<{ conversationEvents: any }>(EVENTS, { id: null }, (d) => {
    notify(d.conversationEvents, me.id);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => { reload(true); reloadCounts(); }, 150) as unknown as number;
  });

  useEffect(() => {
    const n = unreadTotal.value;
    document.title = `${n > 0 ? `(${n}) ` : ""}Inbox · msgsvc`;
    return () => { document.title = "msgsvc"; };
  }, [unreadTotal.value]);

  useEffect(() => {
    function onKey(e: KeyboardEvent) {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      const t = e.target as HTMLElement;
      if (t.closest("input, textarea, select, [contenteditable], dialog")) return;
      const list = items.value;
      const at = list.findIndex((i) => i.conversation.id === conversationId);
      const go = (i: number) => { const it = list[i]; if (it) navigate(`/app/inbox/${it.conversation.id}`); };
      switch (e.key) {
        case "j": go(at < 0 ? 0 : Math.min(list.length - 1, at + 1)); break;
        case "k": go(at < 0 ? 0 : Math.max(0, at - 1)); break;
        case "r": document.dispatchEvent(new CustomEvent("inbox:compose", { detail: "reply" })); break;
        case "n": document.dispatchEvent(new CustomEvent("inbox:compose", { detail: "note" })); break;
        case "e": document.dispatchEvent(new CustomEvent("inbox:close")); break;
        case "?": setHelp(true); break;
        default: return;
      }
      e.preventDefault();
    }
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [conversationId, items.value]);

  return (
    <div class="inbox">
      <section class="inbox-list" aria-labelledby="inbox-title">
        <div class="inbox-head">
          <h1 id="inbox-title">Inbox</h1>
          <button type="button" class="linklike" onClick={() => setHelp(true)} aria-keyshortcuts="?">Shortcuts</button>
          <NotifyButton />
        </div>
        <nav aria-label="Views" class="views">
          <ul>
            {VIEWS.map(([v, label, key]) => {
              const n = key && counts.value ? counts.value[key] : 0;
              return (
                <li><a href={`/app/inbox?view=${v.toLowerCase()}`} aria-current={view.value === v ? "page" : undefined}
                  onClick={(e) => { e.preventDefault(); view.value = v as View; if (conversationId) navigate("/app/inbox"); }}>
                  {label}{n > 0 && <> <span class="count">{n}</span></>}
                </a></li>
              );
            })}
          </ul>
        </nav>
        <Filters />
        {listError.value && <p role="alert" class="error">{listError.value}</p>}
        <List current={conversationId} />
      </section>
      <section class="inbox-main" aria-label="Conversation">
        {conversationId ? <Conversation id={conversationId} key={conversationId} /> :
          <p class="empty">Choose a conversation (j and k move through the list).</p>}
      </section>
      {help && <Shortcuts onClose={() => setHelp(false)} />}
    </div>
  );
}

function Filters() {
  const f = filters.value;
  const set = (k: keyof typeof f, v: string) => { filters.value = { ...f, [k]: v }; };
  return (
    <form class="filters row" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
      <label>Channel{" "}
        <select value={f.channel} onChange={(e) => set("channel", e.currentTarget.value)}>
          <option value="">Any</option>
          <option value="website">Website</option>
          <option value="whatsapp">WhatsApp</option>
          <option value="instagram">Instagram</option>
          <option value="email">Email</option>
        </select>
      </label>
      <label>Tag{" "}
        <input size={8} value={f.tag} onChange={(e) => set("tag", e.currentTarget.value.trim())} />
      </label>
      <label>Assignee{" "}
        <select value={f.assigneeId} onChange={(e) => set("assigneeId", e.currentTarget.value)}>
          <option value="">Anyone</option>
          <option value={session.value!.member.id}>Me</option>
        </select>
      </label>
    </form>
  );
}

function List({ current }: { current?: string }) {
  const end = useRef<HTMLLIElement>(null);
  useEffect(() => {
    const el = end.current;
    if (!el) return;
    const io = new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) more(); }, { rootMargin: "400px" });
    io.observe(el);
    return () => io.disconnect();
  }, [hasMore.value]);
  const list = items.value;
  return (
    <div class="conv-scroll">
      <ul class="conversations" aria-label="Conversations" aria-busy={loading.value}>
        {list.map(({ conversation: c, unread }) => (
          <li key={c.id} class={unread ? "unread" : ""}>
            <a href={`/app/inbox/${c.id}`} aria-current={c.id === current ? "true" : undefined}>
              <span class="who">{c.contact.name || c.contact.email || c.contact.phone || c.contact.externalId || "Unknown"}</span>
              {unread && <span class="dot"><span class="sr-only">, unread</span></span>}
              <span class="meta">{c.channel} · {c.mode}{c.status === "closed" ? " · closed" : ""} · {new Date(c.lastMessageAt).toLocaleTimeString()}</span>
              {c.subject && <span class="subject">{c.subject}</span>}
            </a>
          </li>
        ))}
        {hasMore.value && <li ref={end} class="more"><button type="button" onClick={() => more()}>Load more</button></li>}
      </ul>
      {!list.length && !loading.value && <p class="muted empty">No conversations here.</p>}
    </div>
  );
}

function NotifyButton() {
  const [perm, setPerm] = useState(typeof Notification === "undefined" ? "denied" : Notification.permission);
  if (perm !== "default") return null;
  return <button type="button" class="linklike" onClick={() => Notification.requestPermission().then(setPerm)}>Enable notifications</button>;
}

/** notify shows a desktop notification, when allowed and the tab is hidden,
 * for a conversation assigned to her or newly waiting for a human. */
function notify(e: any, me: string) {
  if (typeof Notification === "undefined" || Notification.permission !== "granted" || !document.hidden || !e) return;
  const d = e.data ?? {};
  const c = d.conversation ?? d;
  const assignee = c.assigned_agent_id ?? c.assignedAgentId;
  const id = c.id ?? c.conversation_id;
  let title = "";
  if (e.type === "conversation.updated" && assignee === me) title = "A conversation was assigned to you";
  else if ((e.type === "conversation.updated" || e.type === "conversation.created") && c.mode === "human" && !assignee && c.status !== "closed") title = "A conversation is waiting";
  if (!title || !id) return;
  const n = new Notification(title, { body: c.contact?.name ?? "", tag: `conv-${id}` });
  n.onclick = () => { focus(); navigate(`/app/inbox/${id}`); };
}
