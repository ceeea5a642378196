// An endpoint's page: test event, signing secret (roll; show with step-up
// show_endpoint_secret), edit, switch off/on, delete, its deliveries and
// recovering failures since a time.
import { useState } from "preact/hooks";
import { Deliveries, Recover } from "./deliveries";
import { q, stepped } from "./gql";
import { type Endpoint, EndpointScope, Verified, endpointFields } from "./hooks";
import { Confirm, Dialog, ErrorText, Field, FormActions, Link, Secret, Select, When, base, go, useLoad } from "./ui";

type TestResult = { outcome: string; status?: number | null; latencyMs?: number | null; reason?: string | null };

/** A test event's outcome in words. */
export function outcomeText(r: TestResult) {
  const ms = r.latencyMs != null ? ` in ${r.latencyMs} ms` : "";
  switch (r.outcome) {
    case "delivered":
      return `Delivered: the endpoint answered ${r.status}${ms}.`;
    case "refused":
      return `Refused: the endpoint answered ${r.status}${ms}.`;
    case "unreachable":
      return `Unreachable: ${r.reason ?? "no connection"}.`;
    case "timed_out":
    case "timeout":
      return `Timed out${ms}.`;
    case "tls_error":
    case "tls":
      return `TLS error: ${r.reason ?? "the certificate was refused"}.`;
    case "url_not_allowed":
      return `URL not allowed: ${r.reason ?? "the address is private or reserved"}.`;
    default:
      return `${r.outcome}${r.status ? ` (${r.status})` : ""}${r.reason ? `: ${r.reason}` : ""}.`;
  }
}

/** The page of the endpoint id. */
export function EndpointPage(p: { id: string }) {
  const ep = useLoad(
    () =>
      q<{ webhookEndpoints: { items: Endpoint[] } }>(`query{webhookEndpoints{items{${endpointFields}}}}`).then((r) =>
        r.webhookEndpoints.items.find((e) => e.id === p.id),
      ),
    [p.id],
  );
  const [dialog, setDialog] = useState<"" | "roll" | "delete" | "edit">("");
  const [secret, setSecret] = useState("");
  const [test, setTest] = useState("");
  const [verification, setVerification] = useState<{ verified: boolean; reason?: string | null } | null>(null);
  const [err, setErr] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [deliveriesTick, setDeliveriesTick] = useState(0);
  const e = ep.data;
  if (ep.loading && !e) return <p>Loading…</p>;
  if (!e)
    return (
      <section>
        <h2>Endpoint not found</h2>
        <ErrorText error={ep.error} />
        <Link href={`${base}/webhooks`}>Back to webhooks</Link>
      </section>
    );
  const act = async (fn: () => Promise<void>) => {
    setBusy(true);
    setErr(null);
    try {
      await fn();
    } catch (x) {
      setErr(x);
    }
    setBusy(false);
  };
  const enabled = e.status !== "disabled";
  return (
    <section aria-labelledby="ep-h">
      <p>
        <Link href={`${base}/webhooks`}>Webhooks</Link>
      </p>
      <h2 id="ep-h">{e.url}</h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          {e.status}
          {e.disabledReason ? ` (${e.disabledReason})` : ""}
        </dd>
        <dt>Events</dt>
        <dd>{e.events.includes("*") ? "every event" : e.events.join(", ")}</dd>
        <dt>Channels</dt>
        <dd>{e.channels.length ? e.channels.join(", ") : "every channel"}</dd>
        <dt>Content</dt>
        <dd>{e.metadataOnly ? "metadata only" : "full"}</dd>
        <dt>Sandbox events</dt>
        <dd>{e.testEvents ? "sent" : "not sent"}</dd>
        <dt>Verified</dt>
        <dd>
          <When at={e.verifiedAt} />
        </dd>
      </dl>
      <div class="actions">
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            act(async () => {
              setTest("Sending…");
              const r = await q<{ sendTestEvent: TestResult }>(
                `mutation($id:ID!){sendTestEvent(endpointId:$id){outcome status latencyMs reason eventId}}`,
                { id: e.id },
              );
              setTest(outcomeText(r.sendTestEvent));
              setDeliveriesTick((t) => t + 1);
            }).then(() => setTest((t) => (t === "Sending…" ? "" : t)))
          }
        >
          Send test event
        </button>
        <button type="button" onClick={() => setDialog("roll")}>
          Roll secret
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            act(async () => {
              const r = await stepped<{ showEndpointSecret: { secret: string } }>(
                "show_endpoint_secret",
                `mutation($id:ID!){showEndpointSecret(id:$id){secret previousSecretUntil}}`,
                { id: e.id },
              );
              setSecret(r.showEndpointSecret.secret);
            })
          }
        >
          Show secret
        </button>
        <button type="button" onClick={() => setDialog("edit")}>
          Edit
        </button>
        <button
          type="button"
          disabled={busy}
          onClick={() =>
            act(async () => {
              const r = await q<{ updateWebhookEndpoint: Endpoint }>(
                `mutation($id:ID!,$on:Boolean){updateWebhookEndpoint(id:$id,input:{enabled:$on}){id}}`,
                { id: e.id, on: !enabled },
              );
              if (r) ep.reload();
            })
          }
        >
          {enabled ? "Switch off" : "Switch on"}
        </button>
        <button type="button" onClick={() => setDialog("delete")}>
          Delete endpoint
        </button>
      </div>
      <div role="status" class="outcome">
        {test}
      </div>
      <Verified v={verification} />
      <ErrorText error={err} />
      {secret && <Secret label="Signing secret" value={secret} />}
      {dialog === "roll" && (
        <RollSecret
          id={e.id}
          onClose={() => setDialog("")}
          onRolled={(s) => {
            setSecret(s);
            setDialog("");
          }}
        />
      )}
      {dialog === "edit" && (
        <EditEndpoint
          e={e}
          onClose={() => setDialog("")}
          onSaved={(v) => {
            setVerification(v);
            setDialog("");
            ep.reload();
          }}
        />
      )}
      {dialog === "delete" && (
        <Confirm
          title="Delete this endpoint?"
          text="It receives nothing more; its deliveries still to be attempted are dropped."
          confirm="Delete"
          onConfirm={async () => {
            await q(`mutation($id:ID!){deleteWebhookEndpoint(id:$id){id}}`, { id: e.id });
            go(`${base}/webhooks`);
          }}
          onClose={() => setDialog("")}
        />
      )}
      <Deliveries endpointId={e.id} tick={deliveriesTick} />
      <Recover endpointId={e.id} onDone={() => setDeliveriesTick((t) => t + 1)} />
    </section>
  );
}

function RollSecret(p: { id: string; onClose: () => void; onRolled: (secret: string) => void }) {
  const [grace, setGrace] = useState("24");
  const [err, setErr] = useState<unknown>(null);
  return (
    <Dialog title="Roll the signing secret" onClose={p.onClose}>
      <form
        onSubmit={async (ev) => {
          ev.preventDefault();
          try {
            const r = await q<{ rollWebhookSecret: { secret: string } }>(
              `mutation($id:ID!,$g:Int){rollWebhookSecret(id:$id,input:{graceHours:$g}){secret graceHours}}`,
              { id: p.id, g: Number(grace) },
            );
            p.onRolled(r.rollWebhookSecret.secret);
          } catch (x) {
            setErr(x);
          }
        }}
      >
        <p>Deliveries are signed with the new secret; the old one co-signs during the grace period.</p>
        <Field
          label="Grace hours"
          type="number"
          min={0}
          max={168}
          value={grace}
          onInput={(ev: Event) => setGrace((ev.target as HTMLInputElement).value)}
        />
        <FormActions submit="Roll" error={err} onCancel={p.onClose} />
      </form>
    </Dialog>
  );
}

function EditEndpoint(p: {
  e: Endpoint;
  onClose: () => void;
  onSaved: (v: { verified: boolean; reason?: string | null } | null) => void;
}) {
  const [url, setUrl] = useState(p.e.url);
  const [events, setEvents] = useState(p.e.events);
  const [chans, setChans] = useState(p.e.channels);
  const [meta, setMeta] = useState(p.e.metadataOnly ? "yes" : "no");
  const [err, setErr] = useState<unknown>(null);
  return (
    <Dialog title="Edit endpoint" onClose={p.onClose}>
      <form
        onSubmit={async (ev) => {
          ev.preventDefault();
          try {
            const input = { url, events: events.length ? events : ["*"], channels: chans, metadataOnly: meta === "yes" };
            const r = await q<{ updateWebhookEndpoint: { verification?: { verified: boolean; reason?: string } | null } }>(
              `mutation($id:ID!,$input:UpdateWebhookEndpointInput!){updateWebhookEndpoint(id:$id,input:$input){id verification{verified reason}}}`,
              { id: p.e.id, input },
            );
            p.onSaved(r.updateWebhookEndpoint.verification ?? null);
          } catch (x) {
            setErr(x);
          }
        }}
      >
        <Field label="URL" type="url" required value={url} onInput={(ev: Event) => setUrl((ev.target as HTMLInputElement).value)} />
        <EndpointScope events={events} channels={chans} setEvents={setEvents} setChannels={setChans} />
        <Select label="Content" value={meta} options={[["no", "full events"], ["yes", "metadata only"]]} onChange={setMeta} />
        <FormActions submit="Save" error={err} onCancel={p.onClose} />
      </form>
    </Dialog>
  );
}
