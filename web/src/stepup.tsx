// Step-up: operations that create or show a secret need a fresh emailed
// code (purposes create_key, roll_key, show_endpoint_secret). withStepUp runs
// the operation; when the API refuses it with step_up_required it mails a
// code (requestStepUpCode), asks for it in a dialog (textbox Code, button
// Confirm), verifies it (verifyStepUp) and runs the operation again.
import { signal } from "@preact/signals";
import { useEffect, useRef, useState } from "preact/hooks";
import type { OperationResult } from "@urql/core";
import { errorCode, errorMessage, mutate } from "./api";

interface Ask {
  purpose: string;
  /** verify checks a code; it answers "" when accepted, else the reason. */
  verify: (code: string) => Promise<string>;
  done: (ok: boolean) => void;
}

const asking = signal<Ask | null>(null);

const purposeText: Record<string, string> = {
  create_key: "create an API key",
  roll_key: "roll an API key",
  show_endpoint_secret: "show a webhook endpoint's signing secret",
};

export async function withStepUp<T>(purpose: string, run: () => Promise<OperationResult<T>>): Promise<OperationResult<T>> {
  const first = await run();
  if (errorCode(first.error) !== "step_up_required") return first;
  const sent = await mutate(`mutation($p: String!) { requestStepUpCode(purpose: $p) }`, { p: purpose });
  if (sent.error) return first;
  const ok = await new Promise<boolean>((done) => {
    asking.value = {
      purpose,
      done,
      async verify(code) {
        const r = await mutate<{ verifyStepUp: boolean }>(
          `mutation($p: String!, $c: String!) { verifyStepUp(purpose: $p, code: $c) }`, { p: purpose, c: code });
        if (r.error) return errorMessage(r.error);
        return r.data?.verifyStepUp ? "" : "That code is not valid; check the latest email.";
      },
    };
  });
  asking.value = null;
  return ok ? run() : first;
}

/** StepUpDialog is mounted once by the shell; it shows while a step-up asks. */
export function StepUpDialog() {
  const ask = asking.value;
  const ref = useRef<HTMLDialogElement>(null);
  const [code, setCode] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (ask && !d.open) { setCode(""); setError(""); d.showModal(); }
    if (!ask && d.open) d.close();
  }, [ask]);

  async function confirm(e: Event) {
    e.preventDefault();
    if (!ask) return;
    setBusy(true);
    const why = await ask.verify(code.trim());
    setBusy(false);
    if (why) { setError(why); return; }
    ask.done(true);
  }

  return (
    <dialog ref={ref} aria-labelledby="stepup-title" onCancel={() => ask?.done(false)}>
      <form onSubmit={confirm} class="stack">
        <h2 id="stepup-title">Confirm it is you</h2>
        <p>To {ask ? purposeText[ask.purpose] ?? ask.purpose : "continue"}, enter the code we just emailed you.</p>
        <label for="stepup-code">Code</label>
        <input id="stepup-code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} required
          value={code} onInput={(e) => setCode(e.currentTarget.value)} />
        {error && <p role="alert" class="error">{error}</p>}
        <div class="row">
          <button type="submit" disabled={busy}>Confirm</button>
          <button type="button" onClick={() => ask?.done(false)}>Cancel</button>
        </div>
      </form>
    </dialog>
  );
}
