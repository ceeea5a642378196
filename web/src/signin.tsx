import { useState } from "preact/hooks";
import { requestCode, signIn, APIError } from "./api";

export function SignIn({ onDone }: { onDone: () => void }) {
  const [email, setEmail] = useState("");
  const [code, setCode] = useState("");
  const [sent, setSent] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [note, setNote] = useState("");

  async function send(e: Event) {
    e.preventDefault();
    setBusy(true); setError(""); setNote("");
    try {
      await requestCode(email.trim());
      setSent(true);
      setNote(`If ${email.trim()} belongs to a member, a 6-digit code is on its way. It is valid for 10 minutes.`);
      (document.getElementById("signin-code") as HTMLInputElement | null)?.focus();
    } catch (err) {
      setError(err instanceof APIError ? err.message : "The server cannot be reached; try again.");
    } finally { setBusy(false); }
  }

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true); setError("");
    try {
      await signIn(email.trim(), code.trim());
      onDone();
    } catch (err) {
      setError(err instanceof APIError ? err.message : "The server cannot be reached; try again.");
    } finally { setBusy(false); }
  }

  return (
    <main class="signin" id="main">
      <h1>Sign in to msgsvc</h1>
      <form onSubmit={send} class="stack">
        <label for="signin-email">Email</label>
        <input id="signin-email" type="email" autoComplete="email" required value={email}
          onInput={(e) => setEmail(e.currentTarget.value)} />
        <button type="submit" disabled={busy}>Send code</button>
      </form>
      <form onSubmit={submit} class="stack">
        <label for="signin-code">Code</label>
        <input id="signin-code" inputMode="numeric" autoComplete="one-time-code" pattern="[0-9]{6}" maxLength={6}
          required value={code} onInput={(e) => setCode(e.currentTarget.value)} aria-describedby="signin-note" />
        <button type="submit" disabled={busy || !email}>Sign in</button>
      </form>
      <p id="signin-note" role="status">{note || (sent ? "" : "We email you a code; no password needed.")}</p>
      {error && <p role="alert" class="error">{error}</p>}
    </main>
  );
}
