// The developer portal at /app/developers/*: its tabs and the page of the
// path (keys, webhooks and an endpoint's page, usage, request logs, members).
import { useEffect, useState } from "preact/hooks";
import { EndpointPage } from "./endpoint";
import { q } from "./gql";
import { Hooks } from "./hooks";
import { Keys } from "./keys";
import { Logs } from "./logs";
import { Members } from "./members";
import { Link, base, go, useLoad } from "./ui";
import { Usage } from "./usage";

const tabs: [string, string][] = [
  ["keys", "API keys"],
  ["webhooks", "Webhooks"],
  ["usage", "Usage"],
  ["logs", "Request logs"],
];

function usePath() {
  const [path, setPath] = useState(location.pathname);
  useEffect(() => {
    const on = () => setPath(location.pathname);
    addEventListener("popstate", on);
    return () => removeEventListener("popstate", on);
  }, []);
  return path;
}

/** The portal; the app routes /app/developers/* here. */
export function Developers() {
  const path = usePath();
  const me = useLoad(() => q<{ me: { id: string; role: string } }>(`query{me{id role}}`), []);
  const owner = me.data?.me.role === "owner";
  const parts = path.slice(base.length).split("/").filter(Boolean);
  const tab = parts[0] ?? "keys";
  useEffect(() => {
    if (!parts.length) history.replaceState(null, "", `${base}/keys`);
  }, [path]);
  const shown = owner ? [...tabs, ["members", "Members"] as [string, string]] : tabs;
  const label = shown.find(([t]) => t === tab)?.[1];
  useEffect(() => {
    document.title = `${label ?? "Developers"} · msgsvc`;
  }, [label]);
  let page;
  if (tab === "keys") page = <Keys />;
  else if (tab === "webhooks" && parts[1]) page = <EndpointPage id={parts[1]} />;
  else if (tab === "webhooks") page = <Hooks />;
  else if (tab === "usage") page = <Usage />;
  else if (tab === "logs") page = <Logs />;
  else if (tab === "members" && owner) page = <Members meId={me.data?.me.id} />;
  else if (tab === "members" && me.loading) page = <p>Loading…</p>;
  else
    page = (
      <p>
        No such page. <button onClick={() => go(`${base}/keys`)}>API keys</button>
      </p>
    );
  return (
    <div class="developers">
      <h1>Developers</h1>
      <nav aria-label="Developer portal" class="tabs">
        <ul>
          {shown.map(([t, name]) => (
            <li key={t}>
              <Link href={`${base}/${t}`} current={t === tab}>
                {name}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {page}
    </div>
  );
}

export default Developers;
