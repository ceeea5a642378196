// Delete conversation (owners and admins): asks in a dialog (button Delete),
// then deletes the conversation with its messages, files, events, webhook
// deliveries and request logs (deleteConversation) and goes back to the list.
import { useEffect, useRef, useState } from "preact/hooks";
import { errorMessage, mutate, session } from "../api";
import { navigate } from "../router";
import { reload, reloadCounts } from "./state";

export function DeleteConversation({ id }: { id: string }) {
  const role = session.value?.member.role;
  const [asking, setAsking] = useState(false);
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const d = ref.current;
    if (asking && d && !d.open) d.showModal();
    if (!asking && d?.open) d.close();
  }, [asking]);
  if (role !== "owner" && role !== "admin") return null;
  async function remove() {
    setBusy(true); setError("");
    const r = await mutate(`mutation($id: ID!) { deleteConversation(id: $id) { id deleted } }`, { id });
    setBusy(false);
    if (r.error) { setError(errorMessage(r.error)); return; }
    setAsking(false);
    navigate("/app/inbox");
    reload(true); reloadCounts();
  }
  return (
    <>
      <button type="button" onClick={() => setAsking(true)}>Delete conversation</button>
      <dialog ref={ref} aria-labelledby={`del-${id}`} onCancel={(e) => { e.preventDefault(); setAsking(false); }}>
        <h2 id={`del-${id}`}>Delete this conversation?</h2>
        <p>Its messages, files, events, webhook deliveries and request logs are deleted for good; webhooks get conversation.deleted.</p>
        {error && <p role="alert" class="error">{error}</p>}
        <div class="row">
          <button type="button" disabled={busy} onClick={remove}>Delete</button>
          <button type="button" onClick={() => setAsking(false)}>Cancel</button>
        </div>
      </dialog>
    </>
  );
}
