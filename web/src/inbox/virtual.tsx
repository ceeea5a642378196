// A virtualised column of items of different heights: only the items in
// (and near) the viewport are in the DOM; the others are spacers whose
// heights come from measured (or estimated) item heights. Sizes are set
// through the CSSOM (element.style), which the CSP allows.
import type { ComponentChildren } from "preact";
import { useLayoutEffect, useRef, useState } from "preact/hooks";

const ESTIMATE = 72;
const OVERSCAN = 800;

export interface VirtualProps<T> {
  items: T[];
  keyOf: (t: T) => string;
  render: (t: T) => ComponentChildren;
  /** stick to the bottom while the reader is at the bottom (a chat log) */
  stickToBottom?: boolean;
  label: string;
  role: string;
  class?: string;
  onReachTop?: () => void;
  /** a change of follow scrolls to the bottom (her own reply was sent) */
  follow?: number;
}

export function Virtual<T>(p: VirtualProps<T>) {
  const box = useRef<HTMLDivElement>(null);
  const heights = useRef(new Map<string, number>());
  const [, setTick] = useState(0);
  const [scroll, setScroll] = useState({ top: 0, height: 800 });
  const atBottom = useRef(true);
  // anchor is the item at the top of the viewport and its offset: when
  // items come in above it (older pages) or above-view heights are measured,
  // the scroll moves by as much, so what the reader sees stays put.
  const anchor = useRef<{ key: string; off: number } | null>(null);

  const offsets = new Array<number>(p.items.length + 1);
  offsets[0] = 0;
  for (let i = 0; i < p.items.length; i++) offsets[i + 1] = offsets[i] + (heights.current.get(p.keyOf(p.items[i])) ?? ESTIMATE);
  const total = offsets[p.items.length];

  const from = scroll.top - OVERSCAN, to = scroll.top + scroll.height + OVERSCAN;
  let lo = 0, hi = p.items.length;
  while (lo < hi) { const mid = (lo + hi) >> 1; if (offsets[mid + 1] < from) lo = mid + 1; else hi = mid; }
  const first = lo;
  let last = first;
  while (last < p.items.length && offsets[last] < to) last++;

  // measure what is shown
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    let changed = false;
    el.querySelectorAll<HTMLElement>("[data-vkey]").forEach((n) => {
      const k = n.dataset.vkey!;
      const h = n.offsetHeight;
      if (h && heights.current.get(k) !== h) { heights.current.set(k, h); changed = true; }
    });
    if (changed) setTick((x) => x + 1);
    if (p.stickToBottom && atBottom.current) el.scrollTop = el.scrollHeight;
    else if (anchor.current) {
      const i = p.items.findIndex((it) => p.keyOf(it) === anchor.current!.key);
      if (i >= 0 && offsets[i] !== anchor.current.off) el.scrollTop += offsets[i] - anchor.current.off;
    }
    // the first item starting below the top: at the very top that is not
    // item 0, which stays put when older items come in after it (a note)
    let a = 0;
    while (a < p.items.length - 1 && offsets[a] <= el.scrollTop) a++;
    anchor.current = p.items.length ? { key: p.keyOf(p.items[a]), off: offsets[a] } : null;
  });

  useLayoutEffect(() => {
    if (!p.follow) return;
    atBottom.current = true;
    const el = box.current;
    if (el) { el.scrollTop = el.scrollHeight; setScroll({ top: el.scrollTop, height: el.clientHeight }); }
  }, [p.follow]);

  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setScroll({ top: el.scrollTop, height: el.clientHeight }));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  function onScroll() {
    const el = box.current!;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    setScroll({ top: el.scrollTop, height: el.clientHeight });
    if (el.scrollTop < 200) p.onReachTop?.();
  }

  const shown = p.items.slice(first, last);
  return (
    <div ref={box} class={`virtual ${p.class ?? ""}`} role={p.role as any} aria-label={p.label} tabIndex={0} onScroll={onScroll}
      style={{ overflowAnchor: "none" }} /* the anchor above keeps the place; the browser's own would move it twice */
      aria-live={p.role === "log" ? "polite" : undefined}>
      <div style={{ height: `${offsets[first]}px` }} aria-hidden="true" />
      {shown.map((it) => <div key={p.keyOf(it)} data-vkey={p.keyOf(it)} class="vitem">{p.render(it)}</div>)}
      <div style={{ height: `${Math.max(0, total - offsets[last])}px` }} aria-hidden="true" />
    </div>
  );
}
