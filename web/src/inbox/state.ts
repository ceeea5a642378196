// The inbox's state: the view, its filters, the loaded pages of the list and
// the unread counts, reloaded on live events and after a reconnect.
import { signal, computed } from "@preact/signals";
import { query, errorMessage } from "../api";
import { INBOX, COUNTS, type Item, type Counts } from "./queries";

export const VIEWS = [
  ["WAITING", "Waiting", "waiting"], ["MINE", "Mine", "mine"], ["AI", "AI", "ai"],
  ["EXTERNAL", "External", "external"], ["CLOSED", "Closed", null], ["ALL", "All", "all"],
] as const;
export type View = (typeof VIEWS)[number][0];

export const view = signal<View>("WAITING");
export const filters = signal<{ channel: string; tag: string; assigneeId: string }>({ channel: "", tag: "", assigneeId: "" });
export const items = signal<Item[]>([]);
export const hasMore = signal(false);
export const loading = signal(false);
export const listError = signal("");
export const counts = signal<Counts | null>(null);
let cursor: string | null = null;
let generation = 0;

export const unreadTotal = computed(() => counts.value?.all ?? 0);

function vars(after: string | null, limit = 50) {
  const f = filters.value;
  return {
    view: view.value, after, limit,
    channel: f.channel || null, tag: f.tag || null, assigneeId: f.assigneeId || null,
  };
}

/** reload loads the first page again (keeping as many rows as were shown,
 * up to 100, so a live update does not shorten the list). */
export async function reload(keep = false) {
  const gen = ++generation;
  const limit = keep ? Math.min(100, Math.max(50, items.value.length)) : 50;
  loading.value = true;
  const r = await query(INBOX, vars(null, limit));
  if (gen !== generation) return;
  loading.value = false;
  if (r.error) { listError.value = errorMessage(r.error); return; }
  listError.value = "";
  const page = r.data.inbox;
  const fresh: Item[] = page.items;
  if (keep && items.value.length > limit) {
    const ids = new Set(fresh.map((i) => i.conversation.id));
    items.value = fresh.concat(items.value.slice(limit).filter((i) => !ids.has(i.conversation.id)));
  } else {
    items.value = fresh;
    cursor = page.nextCursor ?? null;
    hasMore.value = page.hasMore;
  }
}

/** more loads the next page (infinite scroll). */
export async function more() {
  if (!hasMore.value || loading.value || !cursor) return;
  const gen = generation;
  loading.value = true;
  const r = await query(INBOX, vars(cursor));
  loading.value = false;
  if (gen !== generation || r.error) { if (r.error) listError.value = errorMessage(r.error); return; }
  const page = r.data.inbox;
  const ids = new Set(items.value.map((i) => i.conversation.id));
  items.value = items.value.concat(page.items.filter((i: Item) => !ids.has(i.conversation.id)));
  cursor = page.nextCursor ?? null;
  hasMore.value = page.hasMore;
}

export async function reloadCounts() {
  const r = await query(COUNTS);
  if (r.data) counts.value = r.data.inboxCounts;
}

/** markRead shows a conversation read in the list at once. */
export function markReadLocally(id: string) {
  items.value = items.value.map((i) => (i.conversation.id === id && i.unread ? { ...i, unread: false } : i));
}
