// Small pieces the portal's pages share: a modal dialog, a copy button,
// a text field with its label, dates, errors and navigation inside the app.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { navigate } from "../router";

/** The portal's base path; its pages live under it. */
export const base = "/app/developers";

/** Goes to an app path without a reload. */
export const go = (href: string) => navigate(href);

/** An in-app link (the app's click handler keeps it in the page). */
export function Link(p: { href: string; current?: boolean; children: ComponentChildren }) {
  return (
    <a href={p.href} aria-current={p.current ? "page" : undefined}>
      {p.children}
    </a>
  );
}

let seq = 0;
/** A stable id for label/aria wiring. */
export function useId(prefix: string) {
  const ref = useRef("");
  if (!ref.current) ref.current = `${prefix}-${++seq}`;
  return ref.current;
}

/** A modal <dialog>: focus stays inside, Escape calls onClose. */
export function Dialog(p: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const id = useId("dlg");
  useEffect(() => {
    const d = ref.current!;
    if (!d.open) d.showModal();
    return () => d.open && d.close();
  }, []);
  return (
    <dialog
      ref={ref}
      aria-labelledby={id}
      onCancel={(e) => {
        e.preventDefault();
        p.onClose();
      }}
    >
      <h2 id={id}>{p.title}</h2>
      {p.children}
    </dialog>
  );
}

/** Asks once before an irreversible action; confirm names the button. */
export function Confirm(p: {
  title: string;
  text: string;
  confirm: string;
  onConfirm: () => Promise<unknown> | void;
  onClose: () => void;
}) {
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<unknown>(null);
  return (
    <Dialog title={p.title} onClose={p.onClose}>
      <p>{p.text}</p>
      <ErrorText error={err} />
      <div class="actions">
        <button
          type="button"
          disabled={busy}
          onClick={async () => {
            setBusy(true);
            try {
              await p.onConfirm();
              p.onClose();
            } catch (e) {
              setErr(e);
              setBusy(false);
            }
          }}
        >
          {p.confirm}
        </button>
        <button type="button" onClick={p.onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** A secret shown once: a read-only textbox named label and a copy button. */
export function Secret(p: { label: string; value: string; note?: string }) {
  const id = useId("sec");
  const [copied, setCopied] = useState(false);
  return (
    <div class="secret">
      <label for={id}>{p.label}</label>
      <input id={id} readOnly value={p.value} size={48} spellcheck={false} autoComplete="off" />
      <button
        type="button"
        onClick={async () => {
          await navigator.clipboard?.writeText(p.value).catch(() => undefined);
          setCopied(true);
        }}
      >
        Copy {p.label[0].toLowerCase() + p.label.slice(1)}
      </button>
      <span role="status">{copied ? "Copied" : ""}</span>
      {p.note && <p>{p.note}</p>}
    </div>
  );
}

/** A labelled input; extra props go to the input. */
export function Field(p: { label: string; hint?: string } & Record<string, unknown>) {
  const { label, hint, ...rest } = p;
  const id = useId("f");
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} aria-describedby={hint ? id + "-h" : undefined} {...rest} />
      {hint && (
        <small id={id + "-h"} class="hint">
          {hint}
        </small>
      )}
    </div>
  );
}

/** A labelled select of [value, text] options. */
export function Select(p: {
  label: string;
  hideLabel?: boolean;
  value: string;
  options: [string, string][];
  onChange: (v: string) => void;
}) {
  const id = useId("s");
  return (
    <div class="field">
      <label for={id} class={p.hideLabel ? "sr-only" : undefined}>
        {p.label}
      </label>
      <select id={id} value={p.value} onChange={(e) => p.onChange((e.target as HTMLSelectElement).value)}>
        {p.options.map(([v, t]) => (
          <option value={v}>{t}</option>
        ))}
      </select>
    </div>
  );
}

/** Checkboxes named by their values; checked holds the chosen ones. */
export function Checks(p: { legend: string; values: string[]; checked: string[]; onChange: (v: string[]) => void }) {
  return (
    <fieldset>
      <legend>{p.legend}</legend>
      {p.values.map((v) => (
        <label class="check">
          <input
            type="checkbox"
            checked={p.checked.includes(v)}
            onChange={(e) => {
              const on = (e.target as HTMLInputElement).checked;
              p.onChange(on ? [...p.checked, v] : p.checked.filter((c) => c !== v));
            }}
          />
          {v}
        </label>
      ))}
    </fieldset>
  );
}

/** An error's text, announced; nothing when there is none. */
export function ErrorText(p: { error: unknown }) {
  if (!p.error) return <div role="alert" />;
  const e = p.error as { message?: string; code?: string };
  return (
    <div role="alert" class="error">
      {e.message || String(p.error)}
      {e.code ? ` (${e.code})` : ""}
    </div>
  );
}

/** A form's foot: its error, its submit button and Cancel. */
export function FormActions(p: { submit: string; error: unknown; busy?: boolean; onCancel: () => void }) {
  return (
    <>
      <ErrorText error={p.error} />
      <div class="actions">
        <button type="submit" disabled={p.busy}>
          {p.submit}
        </button>
        <button type="button" onClick={p.onCancel}>
          Cancel
        </button>
      </div>
    </>
  );
}

/** A UTC instant as "2026-10-15 12:00 UTC"; "—" for none. */
export function When(p: { at?: string | null }) {
  if (!p.at) return <>—</>;
  return <time dateTime={p.at}>{p.at.slice(0, 16).replace("T", " ")} UTC</time>;
}

/** Previous/next over cursor pages: pages is useCursors' state, page the
 * list's page shown (its next cursor when there is more). */
export function Pager(p: { label: string; pages: Cursors; page?: { hasMore: boolean; nextCursor?: string | null } }) {
  const next = p.page?.hasMore ? p.page.nextCursor : null;
  return (
    <nav aria-label={p.label} class="pager">
      <button type="button" disabled={!p.pages.hasPrev} onClick={p.pages.prev}>
        Previous page
      </button>
      <button type="button" disabled={!next} onClick={() => next && p.pages.next(next)}>
        Next page
      </button>
    </nav>
  );
}

/** The state of useCursors. */
export type Cursors = ReturnType<typeof useCursors>;

/** Cursor paging state: the cursor of the page shown and those before it. */
export function useCursors() {
  const [stack, setStack] = useState<(string | null)[]>([null]);
  const after = stack[stack.length - 1];
  return {
    after,
    hasPrev: stack.length > 1,
    next: (c: string) => setStack([...stack, c]),
    prev: () => setStack(stack.slice(0, -1)),
    reset: () => setStack([null]),
  };
}

/** Loads data with fn whenever deps change; reload runs it again. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]) {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    fn().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState({ error, loading: false }),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { ...state, reload: () => setTick((t) => t + 1) };
}

/** A UTC time as the Since field shows it: 2026-10-15 12:00. */
export const minute = (d: Date) => d.toISOString().slice(0, 16).replace("T", " ");

/** Reads "2026-10-15 12:00" (or an ISO time) as UTC; null when it is none. */
export function parseUTC(s: string): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2})(:\d{2})?Z?$/.exec(s.trim());
  if (!m) return null;
  const d = new Date(`${m[1]}T${m[2]}${m[3] ?? ":00"}Z`);
  return isNaN(d.getTime()) ? null : d.toISOString();
}
