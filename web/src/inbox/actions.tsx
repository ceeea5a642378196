// A conversation's actions: Take over, Hand back to AI, Close/Reopen, Pause/
// Resume integration replies, Assign to, tags. Each is the GraphQL mutation
// the API has for it; a refusal shows the API's message.
import { useEffect, useState } from "preact/hooks";
import { mutate, query, errorMessage, session } from "../api";
import { TAKE_OVER, HAND_BACK, CLOSE, REOPEN, PAUSE, RESUME, ASSIGN, TAGS, MEMBERS, type Conv } from "./queries";
import { reload, reloadCounts } from "./state";
import { DeleteConversation } from "./delete";

let agentsCache: Promise<{ id: string; name: string; active: boolean }[]> | null = null;
function agents() {
  agentsCache ??= query(MEMBERS).then((r) => r.data?.members ?? []);
  return agentsCache;
}

export function Actions({ conv, onChange }: { conv: Conv; onChange: (c: Conv) => void }) {
  const me = session.value!.member;
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const [people, setPeople] = useState<{ id: string; name: string; active: boolean }[]>([]);
  const [tag, setTag] = useState("");
  useEffect(() => { agents().then(setPeople); }, []);

  async function run(doc: string, vars: Record<string, unknown>) {
    setBusy(true); setError("");
    const r = await mutate(doc, { id: conv.id, ...vars });
    setBusy(false);
    if (r.error) { setError(errorMessage(r.error)); return; }
    const c = r.data && (Object.values(r.data)[0] as Conv);
    if (c) onChange({ ...conv, ...c });
    reload(true); reloadCounts();
  }

  useEffect(() => {
    const close = () => { if (conv.status !== "closed") run(CLOSE, {}); };
    document.addEventListener("inbox:close", close);
    return () => document.removeEventListener("inbox:close", close);
  }, [conv]);

  const mine = conv.mode === "human" && conv.assignedAgentId === me.id;
  const closed = conv.status === "closed";
  return (
    <div class="actions">
      <div class="row">
        {!mine && !closed && <button type="button" class="primary" disabled={busy} onClick={() => run(TAKE_OVER, {})}>Take over</button>}
        {conv.mode === "human" && !closed && <button type="button" disabled={busy} onClick={() => run(HAND_BACK, {})}>Hand back to AI</button>}
        {closed
          ? <button type="button" disabled={busy} onClick={() => run(REOPEN, {})}>Reopen conversation</button>
          : <button type="button" disabled={busy} onClick={() => run(CLOSE, {})} aria-keyshortcuts="e">Close conversation</button>}
        <DeleteConversation id={conv.id} />
        {conv.integrationReplies
          ? <button type="button" disabled={busy} onClick={() => run(PAUSE, {})}>Pause integration replies</button>
          : <button type="button" disabled={busy} onClick={() => run(RESUME, {})}>Resume integration replies</button>}
        <label for={`assign-${conv.id}`}>Assign to</label>
        <select id={`assign-${conv.id}`} value={conv.assignedAgentId ?? ""} disabled={busy}
            onChange={(e) => run(ASSIGN, { agent: e.currentTarget.value || null })}>
            <option value="">Nobody</option>
            {people.filter((p) => p.active || p.id === conv.assignedAgentId).map((p) => (
              <option value={p.id}>{p.id === me.id ? `${p.name} (me)` : p.name}</option>
            ))}
        </select>
      </div>
      <div class="row tags">
        <span id={`tags-${conv.id}`}>Tags:</span>
        <ul aria-labelledby={`tags-${conv.id}`} class="taglist">
          {conv.tags.map((t) => (
            <li><span class="tag">{t}</span>
              <button type="button" class="linklike" aria-label={`Remove tag ${t}`}
                onClick={() => run(TAGS, { tags: conv.tags.filter((x) => x !== t) })}>×</button></li>
          ))}
        </ul>
        <form class="row" onSubmit={(e) => { e.preventDefault(); const t = tag.trim(); if (t && !conv.tags.includes(t)) run(TAGS, { tags: [...conv.tags, t] }); setTag(""); }}>
          <label class="sr-only" for={`newtag-${conv.id}`}>New tag</label>
          <input id={`newtag-${conv.id}`} size={10} placeholder="new tag" value={tag} onInput={(e) => setTag(e.currentTarget.value)} />
          <button type="submit" disabled={busy || !tag.trim()}>Add tag</button>
        </form>
      </div>
      {error && <p role="alert" class="error">{error}</p>}
    </div>
  );
}
