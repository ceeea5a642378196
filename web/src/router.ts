// A small router over the History API: the path as a signal, navigate(),
// and a click handler that keeps links under /app/ in the page.
import { signal } from "@preact/signals";

export const path = signal(location.pathname);

export function navigate(to: string, replace = false) {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, "", to); else history.pushState(null, "", to);
  path.value = location.pathname;
}

addEventListener("popstate", () => { path.value = location.pathname; });

/** onLinkClick makes a plain click on an <a href="/app/…"> a navigation
 * within the app (a modified click still opens a new tab). */
export function onLinkClick(e: MouseEvent) {
  const a = (e.target as Element).closest?.("a");
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const href = a.getAttribute("href");
  if (!href || !href.startsWith("/app/") || a.target) return;
  e.preventDefault();
  navigate(href);
}

/** match returns the parameters of a pattern such as /app/inbox/:id. */
export function match(pattern: string, p: string): Record<string, string> | null {
  const a = pattern.split("/"), b = p.replace(/\/+$/, "").split("/");
  const out: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    if (a[i] === "*") return out;
    if (i >= b.length) return null;
    if (a[i].startsWith(":")) out[a[i].slice(1)] = decodeURIComponent(b[i]);
    else if (a[i] !== b[i]) return null;
  }
  return a.length === b.length ? out : null;
}
