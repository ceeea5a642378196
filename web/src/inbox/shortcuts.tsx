import { useEffect, useRef } from "preact/hooks";

export const SHORTCUTS: [string, string][] = [
  ["j", "Next conversation"], ["k", "Previous conversation"], ["r", "Reply"], ["n", "Private note"],
  ["e", "Close the conversation"], ["?", "This list"], ["Enter", "Send (in the reply box)"],
  ["Shift+Enter", "New line (in the reply box)"], ["Escape", "Leave the reply box or this list"],
];

export function Shortcuts({ onClose }: { onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => { ref.current?.showModal(); }, []);
  return (
    <dialog ref={ref} aria-labelledby="keys-title" onClose={onClose}>
      <h2 id="keys-title">Keyboard shortcuts</h2>
      <dl class="keys">
        {SHORTCUTS.map(([k, what]) => <><dt><kbd>{k}</kbd></dt><dd>{what}</dd></>)}
      </dl>
      <button type="button" onClick={() => ref.current?.close()}>Close</button>
    </dialog>
  );
}
