import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";

/** lazy loads a component's chunk the first time it renders. */
export function lazy<P extends object>(load: () => Promise<ComponentType<P>>): ComponentType<P> {
  let loaded: ComponentType<P> | null = null;
  return function Lazy(props: P) {
    const [C, setC] = useState<ComponentType<P> | null>(() => loaded);
    const [failed, setFailed] = useState(false);
    useEffect(() => {
      if (C) return;
      load().then((c) => { loaded = c; setC(() => c); }, () => setFailed(true));
    }, []);
    if (failed) return <p role="alert">This page could not be loaded; reload to try again.</p>;
    return C ? <C {...props} /> : <p role="status">Loading…</p>;
  };
}
