// Webhooks: the endpoints, each a link named by its URL, and adding one
// (URL required; every event and every channel unless narrowed).
import { useState } from "preact/hooks";
import { q } from "./gql";
import { channelNames } from "./keys";
import { Checks, ErrorText, Field, FormActions, Link, Secret, base, useLoad } from "./ui";

/** The event types an endpoint can subscribe to (docs/api.md, Events). */
export const eventTypes = [
  "message.received",
  "message.sent",
  "message.status",
  "conversation.created",
  "conversation.updated",
  "conversation.deleted",
  "contact.created",
  "contact.updated",
  "contact.deleted",
];

/** The fields the portal shows of an endpoint. */
export const endpointFields = `id url description channels events metadataOnly testEvents status disabledReason verifiedAt createdAt`;

/** A webhook endpoint as the portal reads it. */
export type Endpoint = {
  id: string;
  url: string;
  description: string;
  channels: string[];
  events: string[];
  metadataOnly: boolean;
  testEvents: boolean;
  status: string;
  disabledReason?: string | null;
  verifiedAt?: string | null;
  createdAt: string;
};

type Verification = { verified: boolean; reason?: string | null };

/** The outcome of a verification handshake, in words. */
export function Verified(p: { v?: Verification | null }) {
  if (!p.v) return <div role="status" />;
  return (
    <div role="status">
      {p.v.verified ? "Verified: the endpoint answered the handshake." : `Not verified: ${p.v.reason ?? "no reason given"}`}
    </div>
  );
}

/** The webhooks page. */
export function Hooks() {
  const list = useLoad(
    () => q<{ webhookEndpoints: { items: Endpoint[]; egressIps: string[] } }>(`query{webhookEndpoints{items{${endpointFields}} egressIps}}`),
    [],
  );
  const [adding, setAdding] = useState(false);
  const eps = list.data?.webhookEndpoints.items ?? [];
  const ips = list.data?.webhookEndpoints.egressIps ?? [];
  return (
    <section aria-labelledby="hooks-h">
      <h2 id="hooks-h">Webhooks</h2>
      {!adding && (
        <button type="button" onClick={() => setAdding(true)}>
          Add endpoint
        </button>
      )}
      {adding && <AddEndpoint onDone={() => list.reload()} onClose={() => setAdding(false)} />}
      <ErrorText error={list.error} />
      <ul aria-label="Endpoints" class="endpoints">
        {eps.map((e) => (
          <li key={e.id}>
            <Link href={`${base}/webhooks/${e.id}`}>{e.url}</Link> <span class={"badge " + e.status}>{e.status}</span>
            {e.disabledReason && <span> ({e.disabledReason})</span>}
            <div class="hint">{e.events.includes("*") ? "every event" : e.events.join(", ")}</div>
          </li>
        ))}
      </ul>
      {!list.loading && !eps.length && <p>No endpoints yet.</p>}
      {ips.length > 0 && <p class="hint">Deliveries come from {ips.join(", ")}.</p>}
    </section>
  );
}

/** Events and channels chosen for an endpoint, "every" meaning the defaults. */
export function EndpointScope(p: {
  events: string[];
  channels: string[];
  setEvents: (v: string[]) => void;
  setChannels: (v: string[]) => void;
}) {
  const every = p.events.includes("*");
  return (
    <>
      <fieldset>
        <legend>Events</legend>
        <label class="check">
          <input type="checkbox" checked={every} onChange={() => p.setEvents(every ? [] : ["*"])} />
          Every event
        </label>
      </fieldset>
      {!every && <Checks legend="Event types" values={eventTypes} checked={p.events} onChange={p.setEvents} />}
      <Checks legend="Channels (none: every channel)" values={channelNames} checked={p.channels} onChange={p.setChannels} />
    </>
  );
}

function AddEndpoint(p: { onDone: () => void; onClose: () => void }) {
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>(["*"]);
  const [chans, setChans] = useState<string[]>([]);
  const [meta, setMeta] = useState(false);
  const [tests, setTests] = useState(true);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<unknown>(null);
  const [made, setMade] = useState<null | (Endpoint & { secret?: string; verification?: Verification })>(null);
  if (made)
    return (
      <div class="panel">
        <p>
          Endpoint <code>{made.url}</code> added; it is listed below.
        </p>
        <Verified v={made.verification} />
        {made.secret && <Secret label="Signing secret" value={made.secret} note="Copy it now; Show secret on the endpoint's page needs a code." />}
        <button type="button" onClick={p.onClose}>
          Done
        </button>
      </div>
    );
  return (
    <form
      class="panel"
      aria-label="Add endpoint"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setErr(null);
        try {
          const input = { url, events: events.length ? events : ["*"], channels: chans, metadataOnly: meta, testEvents: tests };
          const r = await q<{ createWebhookEndpoint: Endpoint & { secret?: string; verification?: Verification } }>(
            `mutation($input:CreateWebhookEndpointInput!){createWebhookEndpoint(input:$input){${endpointFields} secret verification{verified reason}}}`,
            { input },
          );
          setMade(r.createWebhookEndpoint);
          p.onDone();
        } catch (x) {
          setErr(x);
        }
        setBusy(false);
      }}
    >
      <Field label="URL" type="url" required placeholder="https://" value={url} onInput={(e: Event) => setUrl((e.target as HTMLInputElement).value)} />
      <EndpointScope events={events} channels={chans} setEvents={setEvents} setChannels={setChans} />
      <label class="check">
        <input type="checkbox" checked={meta} onChange={() => setMeta(!meta)} />
        Metadata only (no message content)
      </label>
      <label class="check">
        <input type="checkbox" checked={tests} onChange={() => setTests(!tests)} />
        Send sandbox events too
      </label>
      <FormActions submit="Create" error={err} busy={busy} onCancel={p.onClose} />
    </form>
  );
}
