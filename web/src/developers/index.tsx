// The developer portal at /app/developers/*: its tabs and the page of the
// path (keys, webhooks and an endpoint's page, usage, request logs,
// batches, and members for owners).
import { useEffect } from "preact/hooks";
import { session } from "../api";
import { navigate, path } from "../router";
import { Batches } from "./batches";
import { EndpointPage } from "./endpoint";
import { Hooks } from "./hooks";
import { Keys } from "./keys";
import { Logs } from "./logs";
import { Members } from "./members";
import { Link, base } from "./ui";
import { Usage } from "./usage";

const tabs: [string, string][] = [
  ["keys", "API keys"],
  ["webhooks", "Webhooks"],
  ["usage", "Usage"],
  ["logs", "Request logs"],
  ["batches", "Batches"],
];

/** The portal; the app routes /app/developers/* here. */
export function Developers() {
  const me = session.value?.member;
  const owner = me?.role === "owner";
  const parts = path.value.slice(base.length).split("/").filter(Boolean);
  const tab = parts[0] ?? "keys";
  const shown: [string, string][] = owner ? [...tabs, ["members", "Members"]] : tabs;
  const label = shown.find(([t]) => t === tab)?.[1];
  useEffect(() => {
    if (!parts.length) navigate(`${base}/keys`, true);
  }, [parts.length]);
  useEffect(() => {
    document.title = `${label ?? "Developers"} · msgsvc`;
  }, [label]);
  let page;
  if (tab === "keys") page = <Keys />;
  else if (tab === "webhooks" && parts[1]) page = <EndpointPage id={parts[1]} />;
  else if (tab === "webhooks") page = <Hooks />;
  else if (tab === "usage") page = <Usage />;
  else if (tab === "logs") page = <Logs />;
  else if (tab === "batches") page = <Batches />;
  else if (tab === "members" && owner) page = <Members meId={me?.id} />;
  else page = <p role="alert">No such page.</p>;
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
