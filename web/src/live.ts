// Subscriptions over the socket, as effects.
import { useEffect, useRef } from "preact/hooks";
import { gql } from "./api";

/** useLive subscribes while the component shows (and vars stay the same);
 * onData gets each result's data. */
export function useLive<T = any>(doc: string, vars: Record<string, unknown> | null, onData: (d: T) => void) {
  const cb = useRef(onData);
  cb.current = onData;
  const key = vars ? JSON.stringify(vars) : "";
  useEffect(() => {
    if (!vars) return;
    const sub = gql().subscription<T>(doc, vars).subscribe((r) => {
      if (r.data) cb.current(r.data);
    });
    return () => sub.unsubscribe();
  }, [doc, key]);
}
