// Request logs: every /v1 request of the workspace, filtered, found by
// request id, in cursor pages.
import { useState } from "preact/hooks";
import { q } from "./gql";
import { ErrorText, Field, Pager, Select, When, useCursors, useLoad } from "./ui";

type Request = {
  requestId: string;
  at: string;
  keyPrefix?: string | null;
  keyName?: string | null;
  method: string;
  path: string;
  status: number;
  errorCode?: string | null;
  latencyMs: number;
  conversationId?: string | null;
};

const statuses: [string, string][] = [
  ["", "any"],
  ["succeeded", "2xx"],
  ["failed", "4xx and 5xx"],
];

type Filter = { requestId: string; status: string; key: string; path: string; errorCode: string; since: string; until: string };
const empty: Filter = { requestId: "", status: "", key: "", path: "", errorCode: "", since: "", until: "" };

function toInput(f: Filter) {
  const out: Record<string, unknown> = {};
  if (f.requestId) out.requestId = f.requestId.trim();
  if (f.status) out.status = f.status;
  if (f.key) out.key = f.key.trim();
  if (f.path) out.path = f.path.trim();
  if (f.errorCode) out.errorCode = f.errorCode.trim();
  if (f.since) out.since = new Date(f.since + "Z").toISOString();
  if (f.until) out.until = new Date(f.until + "Z").toISOString();
  return out;
}

/** The request logs page. */
export function Logs() {
  const [draft, setDraft] = useState<Filter>(empty);
  const [filter, setFilter] = useState<Filter>(empty);
  const pages = useCursors();
  const list = useLoad(
    () =>
      q<{ requestLogs: { items: Request[]; hasMore: boolean; nextCursor?: string | null } }>(
        `query($f:RequestLogFilter,$after:String){requestLogs(filter:$f,limit:50,after:$after){items{requestId at keyPrefix keyName method path status errorCode latencyMs conversationId} hasMore nextCursor}}`,
        { f: toInput(filter), after: pages.after },
      ),
    [filter, pages.after],
  );
  const set = (k: keyof Filter) => (e: Event) => setDraft({ ...draft, [k]: (e.target as HTMLInputElement).value });
  const page = list.data?.requestLogs;
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
        <Select label="Status" value={draft.status} options={statuses} onChange={(v) => setDraft({ ...draft, status: v })} />
        <Field label="Key" hint="A key's name or prefix." value={draft.key} onInput={set("key")} />
        <Field label="Path" value={draft.path} onInput={set("path")} />
        <Field label="Error code" value={draft.errorCode} onInput={set("errorCode")} />
        <Field label="From (UTC)" type="datetime-local" value={draft.since} onInput={set("since")} />
        <Field label="To (UTC)" type="datetime-local" value={draft.until} onInput={set("until")} />
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
                <When at={r.at} />
              </td>
              <td>{r.keyName ? `${r.keyName} (${r.keyPrefix})` : r.keyPrefix ?? "—"}</td>
              <td>{r.method}</td>
              <td>{r.path}</td>
              <td>{r.status}</td>
              <td>{r.errorCode ?? ""}</td>
              <td>{r.latencyMs} ms</td>
              <td>
                <code>{r.requestId}</code>
              </td>
              <td>{r.conversationId ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {page && !page.items.length && <p>No request matches.</p>}
      <Pager
        label="Requests pages"
        hasPrev={pages.hasPrev}
        next={page?.hasMore ? page.nextCursor : null}
        onPrev={pages.prev}
        onNext={() => page?.nextCursor && pages.next(page.nextCursor)}
      />
    </section>
  );
}
