// Request logs: every /v1 request of the workspace in the app's mode,
// filtered (status, key, path, error code, time), found by request id, in
// cursor pages.
import { useState } from "preact/hooks";
import { q } from "./gql";
import { ErrorText, Field, Pager, Select, When, parseUTC, useCursors, useLoad } from "./ui";

type Request = {
  requestId: string;
  createdAt: string;
  keyId: string;
  keyName: string;
  keyHint: string;
  method: string;
  path: string;
  status: number;
  errorCode?: string | null;
  latencyMs: number;
  conversationId?: string | null;
};

type Filter = { requestId: string; status: string; keyId: string; path: string; errorCode: string; from: string; to: string };
const empty: Filter = { requestId: "", status: "", keyId: "", path: "", errorCode: "", from: "", to: "" };

function toInput(f: Filter) {
  const out: Record<string, unknown> = {};
  if (f.requestId.trim()) out.requestId = f.requestId.trim();
  if (f.status.trim()) out.status = Number(f.status);
  if (f.keyId) out.keyId = f.keyId;
  if (f.path.trim()) out.path = f.path.trim();
  if (f.errorCode.trim()) out.errorCode = f.errorCode.trim();
  if (parseUTC(f.from)) out.from = parseUTC(f.from);
  if (parseUTC(f.to)) out.to = parseUTC(f.to);
  return out;
}

/** The request logs page. */
export function Logs() {
  const [draft, setDraft] = useState<Filter>(empty);
  const [filter, setFilter] = useState<Filter>(empty);
  const pages = useCursors();
  const keys = useLoad(() => q<{ apiKeys: { id: string; name: string; prefix: string; last4: string }[] }>(`query{apiKeys{id name prefix last4}}`), []);
  const list = useLoad(
    () =>
      q<{ requestLogs: { items: Request[]; hasMore: boolean; nextCursor?: string | null } }>(
        `query($f:RequestLogFilter,$after:String){requestLogs(filter:$f,limit:50,after:$after){items{requestId createdAt keyId keyName keyHint method path status errorCode latencyMs conversationId} hasMore nextCursor}}`,
        { f: toInput(filter), after: pages.after },
      ),
    [filter, pages.after],
  );
  const set = (k: keyof Filter) => (e: Event) => setDraft({ ...draft, [k]: (e.target as HTMLInputElement).value });
  const page = list.data?.requestLogs;
  const keyOptions: [string, string][] = [["", "any"], ...(keys.data?.apiKeys ?? []).map((k): [string, string] => [k.id, `${k.name} (${k.prefix}…${k.last4})`])];
  return (
    <section aria-labelledby="logs-h">
      <h2 id="logs-h">Request logs</h2>
      <form
        class="filters"
        aria-label="Filters"
        onSubmit={(e) => {
          e.preventDefault();
          setFilter(draft);
          pages.reset();
        }}
      >
        <Field label="Request id" value={draft.requestId} onInput={set("requestId")} />
        <Field label="Status" type="number" min={100} max={599} value={draft.status} onInput={set("status")} />
        <Select label="Key" value={draft.keyId} options={keyOptions} onChange={(v) => setDraft({ ...draft, keyId: v })} />
        <Field label="Path" placeholder="/v1/conversations/{id}" value={draft.path} onInput={set("path")} />
        <Field label="Error code" value={draft.errorCode} onInput={set("errorCode")} />
        <Field label="From (UTC)" placeholder="2026-10-15 12:00" value={draft.from} onInput={set("from")} />
        <Field label="To (UTC)" placeholder="2026-10-15 13:00" value={draft.to} onInput={set("to")} />
        <button type="submit">Search</button>
        <button
          type="button"
          onClick={() => {
            setDraft(empty);
            setFilter(empty);
            pages.reset();
          }}
        >
          Clear
        </button>
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </form>
      <ErrorText error={list.error} />
      <table aria-label="Requests">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Key</th>
            <th scope="col">Method</th>
            <th scope="col">Path</th>
            <th scope="col">Status</th>
            <th scope="col">Error code</th>
            <th scope="col">Latency</th>
            <th scope="col">Request id</th>
            <th scope="col">Conversation</th>
          </tr>
        </thead>
        <tbody>
          {(page?.items ?? []).map((r) => (
            <tr key={r.requestId}>
              <td>
                <When at={r.createdAt} />
              </td>
              <td>
                {r.keyName} <code>{r.keyHint}</code>
              </td>
              <td>{r.method}</td>
              <td>{r.path}</td>
              <td>{r.status}</td>
              <td>{r.errorCode ?? ""}</td>
              <td>{Math.round(r.latencyMs * 10) / 10} ms</td>
              <td>
                <code>{r.requestId}</code>
              </td>
              <td>{r.conversationId ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {page && !page.items.length && <p>No request matches.</p>}
      <Pager label="Requests pages" pages={pages} page={page} />
    </section>
  );
}
