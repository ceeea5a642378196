export function Inbox({ conversationId }: { conversationId?: string }) {
  return <section class="page"><h1>Inbox</h1><p>{conversationId ?? ""}</p></section>;
}
