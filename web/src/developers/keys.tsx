// API keys: the list, creating one (step-up create_key, the secret shown
// once), rolling one with a grace period (step-up roll_key) and revoking.
import { useState } from "preact/hooks";
import { testMode } from "../api";
import { q, stepped } from "./gql";
import { Checks, Confirm, Dialog, ErrorText, Field, FormActions, Secret, Select, When, useLoad } from "./ui";

/** The scopes a key may hold (docs/api.md, Authentication). */
export const scopes = [
  "conversations:read",
  "conversations:write",
  "messages:read",
  "messages:write",
  "contacts:read",
  "contacts:write",
  "webhooks:manage",
];
/** The channels of the API. */
export const channelNames = ["website", "whatsapp", "instagram", "email"];

const keyFields = `id name mode prefix last4 scopes channels websiteIds ipAllowlist createdAt lastUsedAt expiresAt status graceUntil`;

type Key = {
  id: string;
  name: string;
  mode: string;
  prefix: string;
  last4: string;
  scopes: string[];
  channels: string[];
  websiteIds: string[];
  ipAllowlist: string[];
  createdAt?: string | null;
  lastUsedAt?: string | null;
  expiresAt?: string | null;
  status: string;
  graceUntil?: string | null;
};

function restrictions(k: Key) {
  const r = [
    k.channels.length ? "channels " + k.channels.join(", ") : "",
    k.websiteIds.length ? "websites " + k.websiteIds.join(", ") : "",
    k.ipAllowlist.length ? "IPs " + k.ipAllowlist.join(", ") : "",
  ].filter(Boolean);
  return r.length ? r.join("; ") : "none";
}

/** The API keys page. */
export function Keys() {
  const list = useLoad(() => q<{ apiKeys: Key[] }>(`query{apiKeys{${keyFields}}}`), []);
  const [dialog, setDialog] = useState<null | { kind: "create" } | { kind: "roll" | "revoke"; key: Key }>(null);
  const close = () => {
    setDialog(null);
    list.reload();
  };
  const keys = list.data?.apiKeys ?? [];
  return (
    <section aria-labelledby="keys-h">
      <h2 id="keys-h">API keys</h2>
      <button type="button" onClick={() => setDialog({ kind: "create" })}>
        Create key
      </button>
      <ErrorText error={list.error} />
      <table aria-label="API keys">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Key</th>
            <th scope="col">Scopes</th>
            <th scope="col">Restrictions</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">Expires</th>
            <th scope="col">Status</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.id}>
              <th scope="row">{k.name}</th>
              <td>
                <code>
                  {k.prefix}…{k.last4}
                </code>
              </td>
              <td>{k.scopes.includes("*") ? "all" : k.scopes.join(", ")}</td>
              <td>{restrictions(k)}</td>
              <td>
                <When at={k.createdAt} />
              </td>
              <td>
                <When at={k.lastUsedAt} />
              </td>
              <td>{k.expiresAt ? <When at={k.expiresAt} /> : "never"}</td>
              <td>
                {k.status}
                {k.graceUntil && k.status === "rolled" && (
                  <>
                    {" "}
                    (works until <When at={k.graceUntil} />)
                  </>
                )}
              </td>
              <td>
                {k.status === "active" && (
                  <button type="button" onClick={() => setDialog({ kind: "roll", key: k })}>
                    Roll<span class="sr-only"> {k.name}</span>
                  </button>
                )}{" "}
                {(k.status === "active" || k.status === "rolled") && (
                  <button type="button" onClick={() => setDialog({ kind: "revoke", key: k })}>
                    Revoke<span class="sr-only"> {k.name}{k.status === "rolled" ? " (rolled)" : ""}</span>
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {!list.loading && !keys.length && <p>No keys yet.</p>}
      {dialog?.kind === "create" && <CreateKey onClose={close} />}
      {dialog?.kind === "roll" && <RollKey k={dialog.key} onClose={close} />}
      {dialog?.kind === "revoke" && (
        <Confirm
          title={`Revoke ${dialog.key.name}?`}
          text="Requests with this key are refused at once (key_revoked). This cannot be undone."
          confirm="Revoke"
          onConfirm={() => q(`mutation($id:ID!){revokeAPIKey(id:$id){id}}`, { id: dialog.key.id })}
          onClose={close}
        />
      )}
    </section>
  );
}

function split(s: string) {
  return s
    .split(/[\s,]+/)
    .map((x) => x.trim())
    .filter(Boolean);
}

function CreateKey(p: { onClose: () => void }) {
  const sites = useLoad(
    () => q<{ channelsOverview: { websites: { website: { id: string; name: string } }[] } }>(`query{channelsOverview{websites{website{id name}}}}`),
    [],
  );
  const [name, setName] = useState("");
  const [live, setLive] = useState(!testMode.value);
  const [chosen, setChosen] = useState<string[]>([]);
  const [chans, setChans] = useState<string[]>([]);
  const [webs, setWebs] = useState<string[]>([]);
  const [ips, setIps] = useState("");
  const [expires, setExpires] = useState("");
  const [err, setErr] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [secret, setSecret] = useState("");
  if (secret)
    return (
      <Dialog title="Key created" onClose={p.onClose}>
        <Secret label="Secret" value={secret} note="Copy it now: it is shown only once." />
        <button type="button" onClick={p.onClose}>
          Done
        </button>
      </Dialog>
    );
  // The form shows once the websites are known, whole: a fieldset
  // appearing under a person's pointer would move what she meant to click.
  if (sites.loading && !sites.data)
    return (
      <Dialog title="Create key" onClose={p.onClose}>
        <p role="status">Loading…</p>
      </Dialog>
    );
  const websites = (sites.data?.channelsOverview.websites ?? []).map((w) => w.website);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setErr(null);
    const input = {
      name,
      mode: live ? "live" : "test",
      scopes: chosen,
      channels: chans,
      websiteIds: webs.map((n) => websites.find((w) => w.name === n)?.id ?? n),
      ipAllowlist: split(ips),
      expiresAt: expires ? new Date(expires + "T23:59:59Z").toISOString() : null,
    };
    try {
      const r = await stepped<{ createAPIKey: { secret: string } }>(
        "create_key",
        `mutation($input:CreateAPIKeyInput!){createAPIKey(input:$input){secret key{id}}}`,
        { input },
      );
      setSecret(r.createAPIKey.secret);
    } catch (x) {
      setErr(x);
    }
    setBusy(false);
  };
  return (
    <Dialog title="Create key" onClose={p.onClose}>
      <form onSubmit={submit}>
        <Field label="Name" value={name} required onInput={(e: Event) => setName((e.target as HTMLInputElement).value)} />
        <fieldset>
          <legend>Mode</legend>
          <label class="check">
            <input type="radio" name="mode" checked={!live} onChange={() => setLive(false)} />
            Test
          </label>
          <label class="check">
            <input type="radio" name="mode" checked={live} onChange={() => setLive(true)} />
            Live
          </label>
        </fieldset>
        <Checks legend="Scopes (none: every scope)" values={scopes} checked={chosen} onChange={setChosen} />
        <Checks legend="Channels (none: every channel)" values={channelNames} checked={chans} onChange={setChans} />
        {websites.length > 0 && (
          <Checks
            legend="Websites (none: every website)"
            values={websites.map((w) => w.name)}
            checked={webs}
            onChange={setWebs}
          />
        )}
        <Field
          label="IP allowlist"
          hint="Addresses or CIDR ranges, separated by commas; empty: any address."
          value={ips}
          onInput={(e: Event) => setIps((e.target as HTMLInputElement).value)}
        />
        <Field
          label="Expires on"
          type="date"
          hint="Empty: never."
          value={expires}
          onInput={(e: Event) => setExpires((e.target as HTMLInputElement).value)}
        />
        <FormActions submit="Create" error={err} busy={busy} onCancel={p.onClose} />
      </form>
    </Dialog>
  );
}

const graces: [string, string][] = [
  ["0", "none: the old secret stops now"],
  ["1", "1 hour"],
  ["24", "24 hours"],
  ["72", "3 days"],
  ["168", "7 days"],
];

function RollKey(p: { k: Key; onClose: () => void }) {
  const [grace, setGrace] = useState("24");
  const [err, setErr] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [secret, setSecret] = useState("");
  if (secret)
    return (
      <Dialog title={`${p.k.name} rolled`} onClose={p.onClose}>
        <Secret label="Secret" value={secret} note="Copy it now: it is shown only once." />
        <button type="button" onClick={p.onClose}>
          Done
        </button>
      </Dialog>
    );
  return (
    <Dialog title={`Roll ${p.k.name}`} onClose={p.onClose}>
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setErr(null);
          try {
            const r = await stepped<{ rollAPIKey: { secret: string } }>(
              "roll_key",
              `mutation($id:ID!,$g:Int!){rollAPIKey(id:$id,graceHours:$g){secret key{id}}}`,
              { id: p.k.id, g: Number(grace) },
            );
            setSecret(r.rollAPIKey.secret);
          } catch (x) {
            setErr(x);
          }
          setBusy(false);
        }}
      >
        <p>A new secret replaces this one; the old one keeps working for the grace period, then fails (key_rolled).</p>
        <Select label="Grace period" value={grace} options={graces} onChange={setGrace} />
        <FormActions submit="Roll key" error={err} busy={busy} onCancel={p.onClose} />
      </form>
    </Dialog>
  );
}
