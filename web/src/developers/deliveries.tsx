// An endpoint's deliveries: status filter, cursor pages, each row's
// attempts on demand, replay; and recovering failed deliveries since a time.
import { useEffect, useState } from "preact/hooks";
import { q } from "./gql";
import { ErrorText, Field, Pager, Select, When, minute, parseUTC, useCursors, useLoad } from "./ui";

type Delivery = {
  id: string;
  eventId: string;
  eventType: string;
  status: string;
  attempts: number;
  lastResponseStatus?: number | null;
  lastError?: string | null;
  nextAttemptAt?: string | null;
  replayOf?: string | null;
  createdAt: string;
  attemptLog: Attempt[];
};

type Attempt = { attemptedAt: string; responseStatus?: number | null; latencyMs: number; responseBody?: string | null; error?: string | null };

const statuses: [string, string][] = [
  ["", "any"],
  ["pending", "pending"],
  ["retrying", "retrying"],
  ["succeeded", "succeeded"],
  ["failed", "failed"],
];

/** The deliveries of an endpoint; tick changing reloads them. */
export function Deliveries(p: { endpointId: string; tick: number }) {
  const [status, setStatus] = useState("");
  const pages = useCursors();
  const list = useLoad(
    () =>
      q<{ webhookDeliveries: { items: Delivery[]; hasMore: boolean; nextCursor?: string | null } }>(
        `query($f:WebhookDeliveryFilter,$after:String){webhookDeliveries(filter:$f,limit:20,after:$after){items{id eventId eventType status attempts lastResponseStatus lastError nextAttemptAt replayOf createdAt attemptLog{attemptedAt responseStatus latencyMs responseBody error}} hasMore nextCursor}}`,
        { f: { endpointId: p.endpointId, status: status || null }, after: pages.after },
      ),
    [p.endpointId, status, pages.after, p.tick],
  );
  const page = list.data?.webhookDeliveries;
  return (
    <section aria-labelledby="dl-h">
      <h3 id="dl-h">Deliveries</h3>
      <div class="filters">
        <Select
          label="Delivery status"
          value={status}
          options={statuses}
          onChange={(v) => {
            setStatus(v);
            pages.reset();
          }}
        />
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </div>
      <ErrorText error={list.error} />
      <table aria-labelledby="dl-h">
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Last answer</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        {(page?.items ?? []).map((d) => (
          <Row key={d.id} d={d} onReplayed={list.reload} />
        ))}
      </table>
      {page && !page.items.length && <p>No deliveries{status ? ` ${status}` : ""}.</p>}
      <Pager label="Deliveries pages" pages={pages} page={page} />
    </section>
  );
}

function Row(p: { d: Delivery; onReplayed: () => void }) {
  const d = p.d;
  const [open, setOpen] = useState(false);
  const [note, setNote] = useState("");
  const [err, setErr] = useState<unknown>(null);
  const id = "att-" + d.id;
  return (
    <tbody>
      <tr>
        <td>
          <When at={d.createdAt} />
        </td>
        <td>
          {d.eventType} <code>{d.eventId}</code>
          {d.replayOf && <div class="hint">replay of {d.replayOf}</div>}
        </td>
        <td>{d.status}</td>
        <td>{d.attempts}</td>
        <td>{d.lastResponseStatus ?? d.lastError ?? "—"}</td>
        <td>
          <button type="button" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
            Attempts<span class="sr-only"> of {d.id}</span>
          </button>{" "}
          {d.eventType !== "endpoint.test" && (
          <button
            type="button"
            onClick={async () => {
              setErr(null);
              try {
                const r = await q<{ replayWebhookDelivery: { id: string } }>(`mutation($id:ID!){replayWebhookDelivery(id:$id){id eventId}}`, {
                  id: d.id,
                });
                setNote(`Replayed as ${r.replayWebhookDelivery.id}.`);
                p.onReplayed();
              } catch (x) {
                setErr(x);
              }
            }}
          >
            Replay
          </button>
          )}
          <span role="status">{note}</span>
          <ErrorText error={err} />
        </td>
      </tr>
      <tr id={id} hidden={!open}>
        <td colSpan={6}>{open && <Attempts d={d} />}</td>
      </tr>
    </tbody>
  );
}

function Attempts(p: { d: Delivery }) {
  const items = p.d.attemptLog;
  if (!items.length) return <p>No attempt yet.</p>;
  return (
    <ol aria-label={`Attempts of ${p.d.id}`} class="attempts">
      {items.map((a) => (
        <li>
          <When at={a.attemptedAt} /> — {a.responseStatus ?? "no answer"} in {a.latencyMs} ms
          {a.error && `: ${a.error}`}
          {a.responseBody && <pre>{a.responseBody}</pre>}
        </li>
      ))}
    </ol>
  );
}

type Recovery = { id: string; state: string; total: number; done: number };

/** Recovering every failed delivery of the endpoint since a time. */
export function Recover(p: { endpointId: string; onDone: () => void }) {
  const [since, setSince] = useState(() => minute(new Date(Date.now() - 24 * 3600e3)));
  const [job, setJob] = useState<Recovery | null>(null);
  const [err, setErr] = useState<unknown>(null);
  useEffect(() => {
    if (!job || job.state !== "running") return;
    const t = setTimeout(async () => {
      try {
        const r = await q<{ webhookRecovery: Recovery }>(`query($id:ID!){webhookRecovery(id:$id){id state total done}}`, { id: job.id });
        setJob(r.webhookRecovery);
        if (r.webhookRecovery.state !== "running") p.onDone();
      } catch (x) {
        setErr(x);
      }
    }, 1000);
    return () => clearTimeout(t);
  }, [job]);
  return (
    <form
      aria-labelledby="rc-h"
      onSubmit={async (e) => {
        e.preventDefault();
        setErr(null);
        const at = parseUTC(since);
        if (!at) {
          setErr(new Error("Write the time as 2026-10-15 12:00 (UTC)."));
          return;
        }
        try {
          const r = await q<{ recoverDeliveries: Recovery }>(
            `mutation($id:ID!,$since:Timestamp!){recoverDeliveries(endpointId:$id,since:$since){id state total done}}`,
            { id: p.endpointId, since: at },
          );
          setJob(r.recoverDeliveries);
        } catch (x) {
          setErr(x);
        }
      }}
    >
      <h3 id="rc-h">Recover failed deliveries</h3>
      <Field
        label="Since (UTC)"
        hint="Every failed delivery from this time on is sent again, e.g. 2026-10-15 12:00."
        required
        value={since}
        onInput={(e: Event) => setSince((e.target as HTMLInputElement).value)}
      />
      <button type="submit" disabled={job?.state === "running"}>
        Recover
      </button>
      <div role="status">
        {job &&
          (job.state === "done"
            ? `Recovery done: ${job.done} of ${job.total} failed deliveries sent again.`
            : `Recovery ${job.state}: ${job.done} of ${job.total}.`)}
      </div>
      {job && <progress aria-label="Recovery progress" max={job.total || 1} value={job.done} />}
      <ErrorText error={err} />
    </form>
  );
}
