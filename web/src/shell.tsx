// The shell: the session, the sign-in page, the navigation Main, Test mode,
// the live/reconnecting state, Sign out and the routes.
import { useEffect } from "preact/hooks";
import { Provider } from "@urql/preact";
import { session, loadSession, signOut, testMode, linkState, gql, type Role } from "./api";
import { path, navigate, match } from "./router";
import { SignIn } from "./signin";
import { StepUpDialog } from "./stepup";
import { lazy } from "./lazy";
import { Inbox } from "./inbox/inbox";

const Developers = lazy(() => import("./developers/index").then((m) => m.Developers));

export const canInbox = (r: Role) => r !== "developer";
export const canDevelopers = (r: Role) => r !== "agent";
const home = (r: Role) => (canInbox(r) ? "/app/inbox" : "/app/developers");

export function App() {
  useEffect(() => { loadSession(); }, []);
  const s = session.value;
  const p = path.value;
  useEffect(() => {
    if (s === null && p !== "/app/sign-in") navigate("/app/sign-in", true);
    if (s && (p === "/app/sign-in" || p === "/app/" || p === "/app")) navigate(home(s.member.role), true);
  }, [s, p]);
  if (s === undefined) return <p role="status" class="loading">Loading…</p>;
  if (s === null) return <SignIn onDone={() => {}} />;
  const mode = testMode.value;
  return (
    <Provider value={gql()} key={String(mode)}>
      <Shell />
    </Provider>
  );
}

function Shell() {
  const s = session.value!;
  const role = s.member.role;
  const p = path.value;
  const here = (prefix: string) => (p.startsWith(prefix) ? "page" : undefined);
  let page;
  if (match("/app/inbox", p) || match("/app/inbox/:id", p)) {
    page = canInbox(role) ? <Inbox conversationId={match("/app/inbox/:id", p)?.id} /> : <NotAllowed />;
  } else if (match("/app/developers/*", p) || p === "/app/developers") {
    page = canDevelopers(role) ? <Developers /> : <NotAllowed />;
  } else {
    page = <section class="page"><h1>Not found</h1><p>Nothing lives at {p}.</p></section>;
  }
  const state = linkState.value;
  return (
    <div class="app">
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand">msgsvc · {s.workspace.name}</span>
        <nav aria-label="Main">
          <ul>
            {canInbox(role) && <li><a href="/app/inbox" aria-current={here("/app/inbox")}>Inbox</a></li>}
            {canDevelopers(role) && <li><a href="/app/developers" aria-current={here("/app/developers")}>Developers</a></li>}
          </ul>
        </nav>
        <label class="switch">
          <input type="checkbox" role="switch" checked={testMode.value}
            onChange={(e) => { testMode.value = e.currentTarget.checked; }} />
          Test mode
        </label>
        <span class={`link link-${state}`} role="status" aria-live="polite">
          {state === "live" ? "Live" : state === "reconnecting" ? "Reconnecting…" : "Connecting…"}
        </span>
        <span class="who">{s.member.name} ({role})</span>
        <button type="button" onClick={() => { signOut().then(() => navigate("/app/sign-in", true)); }}>Sign out</button>
      </header>
      {testMode.value && <p class="banner">Test mode: you see sandbox data.</p>}
      <main id="main" tabIndex={-1}>{page}</main>
      <StepUpDialog />
    </div>
  );
}

function NotAllowed() {
  return <section class="page"><h1>Not available</h1><p>Your role cannot use this page.</p></section>;
}
