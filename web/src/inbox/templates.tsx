// WhatsApp outside the window: the number's approved templates, with their
// parameters, sent with sendMessage.
import { useState } from "preact/hooks";
import { mutate, errorMessage } from "../api";
import { SEND_TEMPLATE, type Conv, type Msg } from "./queries";

export function Templates({ conv, templates, onSent }: { conv: Conv; templates: any[]; onSent: (m: Msg) => void }) {
  const [pick, setPick] = useState(0);
  const [values, setValues] = useState<Record<string, string>>({});
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const t = templates[pick];
  async function send(e: Event) {
    e.preventDefault();
    setBusy(true); setError("");
    const template: any = { name: t.name, language: t.language };
    if (t.parameterFormat === "NAMED") template.namedParameters = Object.fromEntries(t.parameters.map((p: string) => [p, values[p] ?? ""]));
    else if (t.parameters.length) template.parameters = t.parameters.map((p: string) => values[p] ?? "");
    const r = await mutate(SEND_TEMPLATE, { input: { conversationId: conv.id, template } });
    setBusy(false);
    if (r.error) { setError(errorMessage(r.error)); return; }
    setValues({});
    onSent(r.data.sendMessage);
  }
  return (
    <details class="templates">
    <summary>Send an approved template ({templates.length})</summary>
    <form class="stack" onSubmit={send}>
      <label>Template{" "}
        <select value={String(pick)} onChange={(e) => { setPick(Number(e.currentTarget.value)); setValues({}); }}>
          {templates.map((x, i) => <option value={String(i)}>{x.name} ({x.language}, {x.category.toLowerCase()})</option>)}
        </select>
      </label>
      <p class="muted template-body">{t.body}</p>
      {t.parameters.map((p: string) => (
        <label>{`Parameter ${p}`}{" "}
          <input value={values[p] ?? ""} required onInput={(e) => setValues({ ...values, [p]: e.currentTarget.value })} />
        </label>
      ))}
      <button type="submit" disabled={busy}>Send template</button>
      {error && <p role="alert" class="error">{error}</p>}
    </form>
    </details>
  );
}
