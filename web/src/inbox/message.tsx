// One message of a conversation as the customer sent it, or as it went out:
// text, email HTML in a sandboxed frame (no scripts, an opaque origin),
// attachments by their signed links, locations, contact cards, reactions,
// quoted replies, interactive answers, templates, the delivery status of an
// outbound message and who wrote it.
import type { Msg, Note } from "./queries";

const time = (s?: string | null) => (s ? new Date(s).toLocaleString() : "");

export function author(m: Msg): string {
  const s = m.sender ?? {};
  if (m.direction === "inbound") return s.name || "Customer";
  const who: Record<string, string> = { agent: "Agent", ai: "AI", integration: "Integration", api: "API", system: "System" };
  return s.name ? `${s.name} (${who[s.type] ?? s.type})` : who[s.type] ?? s.type ?? "msgsvc";
}

function status(m: Msg): string {
  if (m.direction !== "outbound") return "";
  const d = m.delivery ?? {};
  if (m.status === "failed") return `Failed${d.error ? `: ${d.error.message} (${d.error.code})` : ""}`;
  const words: Record<string, string> = { queued: "Queued", sending: "Sending", sent: "Sent", delivered: "Delivered", read: "Read" };
  return words[m.status] ?? m.status;
}

export function MessageView({ m, quoted }: { m: Msg; quoted?: Msg }) {
  const out = m.direction === "outbound";
  return (
    <article class={`msg ${out ? "out" : "in"}`} aria-label={`${author(m)}, ${time(m.createdAt)}`}>
      <header class="msg-head">
        <span class="msg-author">{author(m)}</span>
        <time dateTime={m.createdAt}>{time(m.createdAt)}</time>
      </header>
      {m.replyTo && (
        <blockquote class="quote">
          {quoted ? <><span class="muted">{author(quoted)}:</span> {quoted.text ?? `[${quoted.type}]`}</> : <span class="muted">In reply to an earlier message</span>}
        </blockquote>
      )}
      {m.forwarded && <p class="muted">Forwarded</p>}
      <Body m={m} />
      {out && <p class={`delivery st-${m.status}`}>{status(m)}</p>}
    </article>
  );
}

function Body({ m }: { m: Msg }) {
  if (m.deleted) return <p class="muted">This message was deleted.</p>;
  const parts = [];
  if (m.email) {
    parts.push(
      <dl class="email-head">
        <dt>From</dt><dd>{m.email.from}</dd>
        <dt>To</dt><dd>{m.email.to.join(", ")}</dd>
        {m.email.cc?.length > 0 && <><dt>Cc</dt><dd>{m.email.cc.join(", ")}</dd></>}
      </dl>,
    );
  }
  if (m.html) {
    parts.push(<iframe class="email" sandbox="" srcdoc={m.html} title={`Email from ${m.email?.from ?? author(m)}`} referrerpolicy="no-referrer" />);
    if (m.text) parts.push(<p class="sr-only">{m.text}</p>);
  } else if (m.text) {
    parts.push(<p class="text">{m.text}</p>);
  }
  if (m.type === "template" && !m.text) parts.push(<p class="muted">Template message</p>);
  for (const a of m.attachments ?? []) {
    const img = a.contentType?.startsWith("image/") && a.status !== "failed";
    parts.push(
      <figure class="attachment">
        {img && <img src={a.url} alt={a.caption || a.filename} loading="lazy" />}
        <figcaption>
          <a href={a.url} download={a.filename} rel="noreferrer">{a.filename}</a> <span class="muted">({size(a.size)})</span>
          {a.caption && <> {a.caption}</>}
          {a.error && <span class="error"> {a.error}</span>}
        </figcaption>
      </figure>,
    );
  }
  if (m.location) {
    const l = m.location;
    parts.push(
      <p class="location">Location: {[l.name, l.address].filter(Boolean).join(", ")} ({l.latitude}, {l.longitude})
        {" "}<a href={l.url || `https://www.openstreetmap.org/?mlat=${l.latitude}&mlon=${l.longitude}`} rel="noreferrer" target="_blank">map</a></p>,
    );
  }
  for (const c of m.contacts ?? []) {
    parts.push(
      <p class="card">Contact: {c.name?.formattedName}
        {c.phones?.map((p: any) => <> · {p.phone}</>)}{c.emails?.map((e: any) => <> · {e.email}</>)}{c.org?.company && <> · {c.org.company}</>}</p>,
    );
  }
  if (m.reaction) parts.push(<p class="reaction">Reacted {m.reaction.emoji || "(removed)"}</p>);
  if (m.interactive) {
    const i = m.interactive;
    parts.push(<p class="interactive">Answered: {i.title ?? i.name ?? i.response ?? i.payload ?? i.id}{i.description && <> — {i.description}</>}</p>);
  }
  if (m.order) parts.push(<p>Order: {m.order.items.map((i: any) => `${i.quantity} × ${i.productId} (${i.price} ${i.currency})`).join(", ")}{m.order.text && ` — ${m.order.text}`}</p>);
  if (m.story) parts.push(<p>Story {m.story.kind}{m.story.url && <> <a href={m.story.url} rel="noreferrer" target="_blank">open</a></>}</p>);
  if (m.share) parts.push(<p>Shared: {m.share.url ? <a href={m.share.url} rel="noreferrer" target="_blank">{m.share.title || m.share.url}</a> : m.share.title}</p>);
  if (m.referral?.headline) parts.push(<p class="muted">From the ad “{m.referral.headline}”</p>);
  if (m.unsupported) parts.push(<p class="muted">Unsupported message{m.unsupported.title && `: ${m.unsupported.title}`}</p>);
  if (m.system) parts.push(<p class="muted">{m.system.body ?? m.system.kind}</p>);
  if (!parts.length) parts.push(<p class="muted">[{m.type}]</p>);
  return <>{parts}</>;
}

function size(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1 << 20) return `${(n / 1024).toFixed(0)} KB`;
  return `${(n / (1 << 20)).toFixed(1)} MB`;
}

export function NoteView({ n }: { n: Note }) {
  return (
    <article class="msg note" aria-label={`Note by ${n.author.name}, ${time(n.createdAt)}`}>
      <header class="msg-head"><span class="msg-author">Note · {n.author.name}</span><time dateTime={n.createdAt}>{time(n.createdAt)}</time></header>
      <p class="text">{n.text}</p>
    </article>
  );
}
