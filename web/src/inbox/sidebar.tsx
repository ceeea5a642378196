// The contact sidebar: name, email, phone, Instagram id, opt-outs per
// channel, past conversations.
import { useEffect, useState } from "preact/hooks";
import { query } from "../api";
import { PAST, type Conv } from "./queries";

export function Sidebar({ conv }: { conv: Conv }) {
  const c = conv.customer;
  const [past, setPast] = useState<any[]>([]);
  useEffect(() => {
    if (!c?.id) return;
    query(PAST, { id: c.id }).then((r) => setPast(r.data?.contactConversations?.items ?? []));
  }, [c?.id, conv.id]);
  const yes = (b: boolean) => (b ? "opted out" : "subscribed");
  return (
    <aside class="sidebar" aria-labelledby={`contact-${conv.id}`}>
      <h2 id={`contact-${conv.id}`}>Contact</h2>
      <dl>
        <dt>Name</dt><dd>{c?.name || conv.contact.name || "—"}</dd>
        <dt>Email</dt><dd>{c?.email || conv.contact.email || "—"}</dd>
        <dt>Phone</dt><dd>{c?.phone || conv.contact.phone || "—"}</dd>
        <dt>Instagram</dt><dd>{c?.instagramUserId || "—"}</dd>
      </dl>
      {c && <>
        <h3>Opt-outs</h3>
        <dl>
          <dt>WhatsApp</dt><dd>{yes(c.optOuts.whatsapp)}{c.marketingOptOuts?.whatsapp ? ", no marketing" : ""}</dd>
          <dt>Email</dt><dd>{yes(c.optOuts.email)}{c.emailSuppressed ? ", suppressed" : ""}</dd>
          <dt>Instagram</dt><dd>{yes(c.optOuts.instagram)}</dd>
        </dl>
      </>}
      <h3>Past conversations</h3>
      <ul class="past">
        {past.filter((p) => p.id !== conv.id).map((p) => (
          <li><a href={`/app/inbox/${p.id}`}>{p.subject || p.channel} · {p.status} · {new Date(p.lastMessageAt).toLocaleDateString()}</a></li>
        ))}
        {past.filter((p) => p.id !== conv.id).length === 0 && <li class="muted">None</li>}
      </ul>
    </aside>
  );
}
