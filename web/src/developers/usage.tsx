// Channels and usage: websites with their widget snippet, WhatsApp numbers,
// Instagram accounts and email addresses with their state, and this month's
// message quota.
import { q } from "./gql";
import { ErrorText, Secret, When, useLoad } from "./ui";

type Check = { status: string; error?: string | null; at: string } | null;
type Data = {
  channelsOverview: {
    usage: { period: string; messagesUsed: number; messagesLimit: number; resetsAt: string };
    websites: { website: { id: string; name: string; domains: string[] }; snippet: string }[];
    whatsapp: { id: string; phoneNumber: string; name: string; status: string; marketingMessages: string; subscription: Check; templateSync: Check }[];
    instagram: { id: string; username: string; status: string; subscription: Check }[];
    email: { id: string; address: string; forwardingActive: boolean }[];
    emailSenders: { id: string; address: string; domain: string; verified: boolean }[];
  };
};

const check = `{status error at}`;
const query = `query{channelsOverview{usage{period messagesUsed messagesLimit resetsAt} websites{website{id name domains} snippet} emailSenders{id address domain verified} whatsapp{id phoneNumber name status marketingMessages subscription${check} templateSync${check}} instagram{id username status subscription${check}} email{id address forwardingActive}}}`;

function CheckText(p: { c: Check }) {
  if (!p.c) return <>never run</>;
  return (
    <>
      {p.c.status}
      {p.c.error ? `: ${p.c.error}` : ""} (<When at={p.c.at} />)
    </>
  );
}

/** The usage page. */
export function Usage() {
  const d = useLoad(() => q<Data>(query), []);
  if (d.error) return <ErrorText error={d.error} />;
  if (!d.data) return <p>Loading…</p>;
  const c = d.data.channelsOverview;
  const u = c.usage;
  return (
    <section aria-labelledby="use-h">
      <h2 id="use-h">Usage</h2>
      <h3>Quota</h3>
      <p>
        {u.messagesUsed} of {u.messagesLimit} messages used in {u.period}; resets <When at={u.resetsAt} />.
      </p>
      <progress aria-label="Quota used" max={u.messagesLimit || 1} value={u.messagesUsed} />
      <h3>Websites</h3>
      <ul aria-label="Websites">
        {c.websites.map(({ website: w, snippet }) => (
          <li key={w.id}>
            <strong>{w.name}</strong> <code>{w.id}</code> — {w.domains.join(", ") || "no domain"}
            <Secret label={`Widget snippet for ${w.name}`} value={snippet} />
          </li>
        ))}
      </ul>
      <h3>WhatsApp numbers</h3>
      <table aria-label="WhatsApp numbers">
        <thead>
          <tr>
            <th scope="col">Number</th>
            <th scope="col">Status</th>
            <th scope="col">Marketing</th>
            <th scope="col">Subscription</th>
            <th scope="col">Template sync</th>
          </tr>
        </thead>
        <tbody>
          {c.whatsapp.map((n) => (
            <tr key={n.id}>
              <th scope="row">
                {n.name} {n.phoneNumber}
              </th>
              <td>{n.status}</td>
              <td>{n.marketingMessages}</td>
              <td>
                <CheckText c={n.subscription} />
              </td>
              <td>
                <CheckText c={n.templateSync} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>Instagram accounts</h3>
      <ul aria-label="Instagram accounts">
        {c.instagram.map((a) => (
          <li key={a.id}>
            @{a.username} — {a.status}; subscription <CheckText c={a.subscription} />
          </li>
        ))}
      </ul>
      <h3>Email addresses</h3>
      <ul aria-label="Email addresses">
        {c.email.map((a) => (
          <li key={a.id}>
            {a.address} — forwarding {a.forwardingActive ? "active" : "not active"}
          </li>
        ))}
      </ul>
      <h3>Email senders</h3>
      <ul aria-label="Email senders">
        {c.emailSenders.map((s) => (
          <li key={s.id}>
            {s.address} — domain {s.domain} {s.verified ? "verified" : "not verified"}
          </li>
        ))}
      </ul>
    </section>
  );
}
