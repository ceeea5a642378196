package auth

import (
	"slices"
	"strings"

	"github.com/msgsvc/msgsvc/internal/apierr"
)

// The roles of a workspace's members (the app's people).
const (
	RoleOwner     = "owner"
	RoleAdmin     = "admin"
	RoleDeveloper = "developer"
	RoleAgent     = "agent"
)

// Roles are the roles a member may have, most powerful first.
var Roles = []string{RoleOwner, RoleAdmin, RoleDeveloper, RoleAgent}

// Who may use a root field (app.md 1): agents work conversations,
// contacts, messages and the inbox; developers keys, webhooks, deliveries,
// request logs, usage and channels (read); admins and owners everything of
// the workspace; owners also members and roles.
var (
	everyone   = []string{RoleOwner, RoleAdmin, RoleDeveloper, RoleAgent}
	inbox      = []string{RoleOwner, RoleAdmin, RoleAgent}
	developers = []string{RoleOwner, RoleAdmin, RoleDeveloper}
	admins     = []string{RoleOwner, RoleAdmin}
	owners     = []string{RoleOwner}
)

// fieldRoles says, for every root field of the GraphQL schema (Query,
// Mutation, Subscription), by its name alone, which member roles may use
// it. The admin token may use every field; a member may use only the
// fields her role is listed for. A root field missing here is refused to
// members (graph's TestEveryRootFieldHasRoles fails on it).
var fieldRoles = map[string][]string{
	// Conversations, messages, contacts: the inbox.
	"conversations": inbox, "conversation": inbox, "messages": inbox, "message": inbox,
	"contacts": inbox, "contact": inbox, "humanQueue": inbox, "agents": inbox,
	"messagingWindow": inbox, "whatsappTemplates": inbox, "emailSenders": inbox,
	"updateConversation": inbox, "createContact": inbox, "updateContact": inbox, "deleteContact": inbox,
	"sendMessage": inbox, "sendMarketingMessage": inbox, "uploadFile": inbox, "refetchFile": inbox,
	"agentReply": inbox, "assignConversation": inbox, "agentTyping": inbox, "closeConversation": inbox,
	"handBackToAI": inbox, "pauseIntegrationReplies": inbox, "resumeIntegrationReplies": inbox,
	"conversationEvents": inbox, "visitorTyping": inbox,
	// The agent inbox (schema/inbox.graphqls).
	"inbox": inbox, "inboxCounts": inbox, "notes": inbox, "replyRules": inbox, "contactConversations": inbox,
	"markConversationRead": inbox, "addNote": inbox, "setPresence": inbox, "takeOver": inbox,
	"reopenConversation": inbox, "conversationPresence": inbox, "conversationNotes": inbox,
	// Sandbox inbound: agents and developers try the inbox and webhooks.
	"simulateInbound": everyone,
	// Channels are read by everyone (the reply box shows their rules).
	"channels": everyone,
	// The developer portal.
	"usage": developers, "event": developers, "channelConnection": developers,
	"webhookEndpoints": developers, "webhookDeliveries": developers,
	"createWebhookEndpoint": developers, "updateWebhookEndpoint": developers, "deleteWebhookEndpoint": developers,
	"rollWebhookSecret": developers, "verifyWebhookEndpoint": developers, "replayWebhookDelivery": developers,
	"webhookRecovery": developers, "showEndpointSecret": developers, "sendTestEvent": developers, "recoverDeliveries": developers,
	// The workspace's settings: admins and owners.
	"knowledgeEntries": admins, "aiInstructions": admins, "createKnowledgeEntry": admins,
	"updateKnowledgeEntry": admins, "deleteKnowledgeEntry": admins, "setAIInstructions": admins,
	"connectChannelAccount": admins, "rotateChannelToken": admins, "disconnectChannelAccount": admins,
	"failedInboundMails": admins, "retryInboundMail": admins, "failedProviderHooks": admins,
	// Oneself: every member.
	"me": everyone, "mySessions": everyone, "endSession": everyone, "members": everyone,
	"requestStepUpCode": everyone, "verifyStepUp": everyone,
	// The developer portal (schema/developers.graphqls).
	"apiKeys": developers, "createAPIKey": developers, "rollAPIKey": developers, "revokeAPIKey": developers,
	"channelsOverview": developers, "requestLogs": developers,
	"deleteConversation": admins,
	// A batch's progress: messages sent through the API.
	"messageBatch": everyone,
	// The portal's list of the recent batches (its page Batches).
	"messageBatches": developers,
	// Members and roles: owners.
	"inviteMember": owners, "updateMemberRole": owners, "setMemberActive": owners, "setAgentActive": owners,
}

// FieldRoles returns the roles that may use a root field, and whether the
// table names it.
func FieldRoles(field string) ([]string, bool) {
	roles, ok := fieldRoles[field]
	return roles, ok
}

// CheckField refuses a member a root field her role lacks (403
// forbidden); API keys and the admin token pass (introspection too).
func (a *Actor) CheckField(field string) error {
	if a.MemberID == "" || strings.HasPrefix(field, "__") || slices.Contains(fieldRoles[field], a.Role) {
		return nil
	}
	return apierr.New(apierr.Forbidden, "A member with role %s may not use %s.", a.Role, field)
}

// CheckSelf refuses a member acting as another agent: a signed-in member
// replies and types as herself; the admin token may name any agent.
func (a *Actor) CheckSelf(agentID string) error {
	if a.MemberID == "" || a.MemberID == agentID {
		return nil
	}
	return apierr.New(apierr.Forbidden, "A member acts as herself: agentId must be your own id, %s.", a.MemberID)
}

// RoleScopes are the API permissions a role's GraphQL requests carry.
func RoleScopes(role string) []string {
	switch role {
	case RoleOwner, RoleAdmin:
		return []string{"*"}
	case RoleDeveloper:
		return []string{"webhooks:manage"}
	case RoleAgent:
		return []string{"conversations:read", "conversations:write", "messages:read", "messages:write",
			"contacts:read", "contacts:write"}
	}
	return nil
}
