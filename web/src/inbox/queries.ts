// The inbox's GraphQL documents (schema/inbox.graphqls, core, messages, ai).
export const CONV = `id channel status mode subject assignedAgentId tags integrationReplies messageCount lastMessageAt createdAt
  contact { name email phone externalId }`;

export const INBOX = `query Inbox($view: InboxView!, $channel: String, $tag: String, $assigneeId: ID, $after: String, $limit: Int) {
  inbox(view: $view, channel: $channel, tag: $tag, assigneeId: $assigneeId, after: $after, limit: $limit) {
    items { unread queuedAt conversation { ${CONV} } } hasMore nextCursor } }`;

export const COUNTS = `query Counts { inboxCounts { waiting mine ai external all } }`;

export const CONVERSATION = `query Conversation($id: ID!) { conversation(id: $id) { ${CONV}
  customer { id name email phone instagramUserId whatsappUserId emailSuppressed
    optOuts { whatsapp email instagram } marketingOptOuts { whatsapp } } } }`;

const MESSAGE = `id conversationId channel direction type text html status createdAt deleted forwarded
  sender { type name }
  email { from to cc warnings { code detail } }
  attachments { id filename contentType size url caption status error }
  delivery { sentAt deliveredAt readAt failedAt error { code message } }
  replyTo { messageId providerMessageId }
  location { latitude longitude name address url }
  contacts { name { formattedName } phones { phone } emails { email } org { company } }
  interactive { kind id title description name response payload }
  reaction { emoji messageId }
  order { text items { productId quantity price currency } }
  story { kind url } share { url title }
  unsupported { title details } system { kind body }
  referral { headline body sourceUrl }`;

// Newest first: a conversation opens at its last page, older ones load as
// the reader scrolls up.
export const MESSAGES = `query Messages($id: ID!, $after: String) {
  messages(conversationId: $id, limit: 100, after: $after, newestFirst: true) { items { ${MESSAGE} } hasMore nextCursor } }`;

export const MESSAGE_BY_ID = `query Message($id: ID!) { message(id: $id) { ${MESSAGE} } }`;

export const NOTES = `query Notes($id: ID!, $after: String) {
  notes(conversationId: $id, limit: 100, after: $after) { items { id conversationId text createdAt author { id name } } hasMore nextCursor } }`;

export const RULES = `query Rules($id: ID!) { replyRules(conversationId: $id) {
  channel canReply optedOut suppressed humanAgentUntil
  refusal { code message }
  window { open freeTextUntil templateRequired lastInboundAt }
  templates { id name language category body parameterFormat parameters }
  email { from to cc subject } } }`;

export const PAST = `query Past($id: ID!) { contactConversations(contactId: $id, limit: 20) { items { id channel status subject lastMessageAt } } }`;

export const MEMBERS = `query Members { members { id name role active } }`;

export const EVENTS = `subscription Events($id: ID) { conversationEvents(conversationId: $id) { id type createdAt data } }`;
export const PRESENCE = `subscription Presence($id: ID!) { conversationPresence(conversationId: $id) { conversationId viewing typing expiresAt member { id name } } }`;
export const VISITOR_TYPING = `subscription VisitorTyping($id: ID) { visitorTyping(conversationId: $id) { conversationId at } }`;
export const NOTE_ADDED = `subscription NoteAdded($id: ID) { conversationNotes(conversationId: $id) { id conversationId text createdAt author { id name } } }`;

const R = `{ ${CONV} }`;
export const TAKE_OVER = `mutation($id: ID!) { takeOver(id: $id) ${R} }`;
export const HAND_BACK = `mutation($id: ID!) { handBackToAI(id: $id) ${R} }`;
export const CLOSE = `mutation($id: ID!) { closeConversation(id: $id) ${R} }`;
export const REOPEN = `mutation($id: ID!) { reopenConversation(id: $id) ${R} }`;
export const PAUSE = `mutation($id: ID!) { pauseIntegrationReplies(id: $id) ${R} }`;
export const RESUME = `mutation($id: ID!) { resumeIntegrationReplies(id: $id) ${R} }`;
export const ASSIGN = `mutation($id: ID!, $agent: ID) { assignConversation(id: $id, agentId: $agent) ${R} }`;
export const TAGS = `mutation($id: ID!, $tags: [String!]!) { updateConversation(id: $id, input: {tags: $tags}) ${R} }`;
export const REPLY = `mutation($id: ID!, $agent: ID!, $text: String!) { agentReply(conversationId: $id, agentId: $agent, text: $text) { ${MESSAGE} } }`;
export const SEND_TEMPLATE = `mutation($input: SendMessageInput!) { sendMessage(input: $input) { ${MESSAGE} } }`;
export const ADD_NOTE = `mutation($id: ID!, $text: String!) { addNote(conversationId: $id, text: $text) { id conversationId text createdAt author { id name } } }`;
export const MARK_READ = `mutation($id: ID!) { markConversationRead(id: $id) { unread } }`;
export const PRESENCE_SET = `mutation($id: ID!, $typing: Boolean!, $viewing: Boolean) { setPresence(conversationId: $id, typing: $typing, viewing: $viewing) }`;

export interface Conv {
  id: string; channel: string; status: string; mode: string; subject?: string | null;
  assignedAgentId?: string | null; tags: string[]; integrationReplies: boolean; messageCount: number;
  lastMessageAt: string; createdAt: string;
  contact: { name?: string | null; email?: string | null; phone?: string | null; externalId?: string | null };
  customer?: any;
}
export interface Item { unread: boolean; queuedAt?: string | null; conversation: Conv }
export interface Msg { [k: string]: any; id: string; direction: string; createdAt: string; text?: string | null }
export interface Note { id: string; conversationId: string; text: string; createdAt: string; author: { id: string; name: string } }
export type Counts = Record<"waiting" | "mine" | "ai" | "external" | "all", number>;
