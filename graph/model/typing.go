package model

// TypingNotice is someone typing on a website chat: an agent, for the
// widgets of its visitor, or a visitor, for the dashboards. It is here, with
// the data every layer shares, so that the widget, which carries notices
// both ways, depends on no domain package.
type TypingNotice struct {
	WorkspaceID, ConversationID, ContactID, WebsiteID string
}
