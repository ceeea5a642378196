// The app's API client: the sign-in endpoints (/app/api/…), the GraphQL
// client (urql over fetch, subscriptions over graphql-ws), the Test mode
// switch and the live/reconnecting state of the socket.
import { signal, effect } from "@preact/signals";
import { Client, fetchExchange, subscriptionExchange, CombinedError, type OperationResult } from "@urql/core";
import { createClient as createWS, type Client as WSClient } from "graphql-ws/client";

export type Role = "owner" | "admin" | "developer" | "agent";
export interface Member { id: string; name: string; email: string; role: Role }
export interface Session { member: Member; workspace: { id: string; name: string } }

/** The signed-in session: undefined while unknown, null when signed out. */
export const session = signal<Session | null | undefined>(undefined);

const modeKey = "msgsvc.testMode";
function storedMode(): boolean {
  try { return localStorage.getItem(modeKey) === "true"; } catch { return false; }
}
/** Test mode on: the sandbox data and test keys (Msgsvc-Livemode: false). */
export const testMode = signal<boolean>(storedMode());
effect(() => {
  try { localStorage.setItem(modeKey, String(testMode.value)); } catch { /* private mode */ }
});
export const livemodeHeader = () => (testMode.value ? "false" : "true");

/** The graphql-ws connection: connecting (first time), live, reconnecting. */
export type LinkState = "connecting" | "live" | "reconnecting";
export const linkState = signal<LinkState>("connecting");

const resyncers = new Set<() => void>();
/** onResync registers a refresh to run after the socket reconnects (the
 * list and the open conversation reload what they may have missed). */
export function onResync(f: () => void): () => void {
  resyncers.add(f);
  return () => { resyncers.delete(f); };
}

export class APIError extends Error {
  constructor(public status: number, public code: string, message: string) { super(message); }
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status === 204) return undefined as T;
  let data: any = null;
  try { data = await res.json(); } catch { /* no body */ }
  if (!res.ok) {
    const e = data?.error ?? {};
    throw new APIError(res.status, e.code ?? "error", e.message ?? `The server answered ${res.status}.`);
  }
  return data as T;
}

export const requestCode = (email: string) => call<{ sent: boolean }>("POST", "/app/api/sign-in/code", { email });
export async function signIn(email: string, code: string): Promise<Session> {
  const s = await call<Session>("POST", "/app/api/sign-in", { email, code });
  session.value = s;
  return s;
}
export async function signOut(): Promise<void> {
  try { await call("POST", "/app/api/sign-out"); } finally {
    dropClient();
    session.value = null;
  }
}
export async function loadSession(): Promise<void> {
  try { session.value = await call<Session>("GET", "/app/api/session"); } catch { session.value = null; }
}

let ws: WSClient | null = null;
let client: Client | null = null;
let clientMode: boolean | null = null;

function dropClient() {
  ws?.dispose();
  ws = null;
  client = null;
  clientMode = null;
}

function wsURL(): string {
  const u = new URL("/graphql", location.href);
  u.protocol = u.protocol === "https:" ? "wss:" : "ws:";
  return u.toString();
}

/** gql returns the GraphQL client of the current mode (a new one, with a
 * new socket, after Test mode changes). */
export function gql(): Client {
  if (client && clientMode === testMode.value) return client;
  dropClient();
  const mode = livemodeHeader();
  let connectedBefore = false;
  linkState.value = "connecting";
  const socket = createWS({
    url: wsURL(),
    lazy: false,
    keepAlive: 15_000,
    retryAttempts: Infinity,
    // 4403: the session ended (or was never there): no retry; the shell
    // asks for the session again and shows the sign-in page.
    shouldRetry: (e) => {
      const code = (e as CloseEvent)?.code;
      if (code === 4403 || code === 4401) { loadSession(); return false; }
      return true;
    },
    retryWait: async (n) => { await new Promise((r) => setTimeout(r, Math.min(500 * 2 ** n, 10_000) * (0.5 + Math.random() / 2))); },
    connectionParams: () => ({ "Msgsvc-Livemode": mode }),
    on: {
      connected: () => {
        if (ws !== socket) return;
        linkState.value = "live";
        if (connectedBefore) resyncers.forEach((f) => f());
        connectedBefore = true;
      },
      closed: () => { if (ws === socket) linkState.value = connectedBefore ? "reconnecting" : "connecting"; },
      error: () => { if (ws === socket) linkState.value = connectedBefore ? "reconnecting" : "connecting"; },
    },
  });
  ws = socket;
  clientMode = testMode.value;
  client = new Client({
    url: "/graphql",
    requestPolicy: "network-only",
    preferGetMethod: false,
    fetchOptions: () => ({ credentials: "same-origin", headers: { "Msgsvc-Livemode": mode } }),
    exchanges: [
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query || "" };
          return {
            subscribe(sink) {
              const unsubscribe = socket.subscribe(input, sink);
              return { unsubscribe };
            },
          };
        },
      }),
    ],
  });
  return client;
}

/** errorCode is the first GraphQL error's extensions.code. */
export function errorCode(e: CombinedError | undefined): string | undefined {
  return e?.graphQLErrors?.[0]?.extensions?.code as string | undefined;
}

/** errorMessage is the API's own message for a refusal, without urql's prefix. */
export function errorMessage(e: CombinedError | undefined): string {
  if (!e) return "";
  if (e.graphQLErrors?.length) return e.graphQLErrors.map((g) => g.message).join(" ");
  return e.networkError ? "The server cannot be reached; try again." : e.message;
}

/** query and mutate run one operation on the current client. */
export function query<T = any>(doc: string, vars: Record<string, unknown> = {}): Promise<OperationResult<T>> {
  return gql().query<T>(doc, vars).toPromise().then(signedOut);
}
export function mutate<T = any>(doc: string, vars: Record<string, unknown> = {}): Promise<OperationResult<T>> {
  return gql().mutation<T>(doc, vars).toPromise().then(signedOut);
}

/** signedOut notices a session that ended (401): the shell shows sign-in. */
function signedOut<T>(r: OperationResult<T>): OperationResult<T> {
  if ((r.error?.response as Response | undefined)?.status === 401) loadSession();
  return r;
}
