package auth

// The roles of a workspace's members (the app's people).
const (
	RoleOwner     = "owner"
	RoleAdmin     = "admin"
	RoleDeveloper = "developer"
	RoleAgent     = "agent"
)

// fieldRoles says, for every root field of the GraphQL schema (Query,
// Mutation, Subscription), which member roles may use it. The admin token
// may use every field; a member may use only the fields her role is listed
// for. A root field missing here is refused to members.
var fieldRoles = map[string][]string{
	// The developer portal (schema/developers.graphqls).
	"apiKeys":            {RoleOwner, RoleAdmin, RoleDeveloper},
	"createAPIKey":       {RoleOwner, RoleAdmin, RoleDeveloper},
	"rollAPIKey":         {RoleOwner, RoleAdmin, RoleDeveloper},
	"revokeAPIKey":       {RoleOwner, RoleAdmin, RoleDeveloper},
	"channelsOverview":   {RoleOwner, RoleAdmin, RoleDeveloper},
	"requestLogs":        {RoleOwner, RoleAdmin, RoleDeveloper},
	"deleteConversation": {RoleOwner, RoleAdmin},
	// Webhooks (app.md section 3): developers, admins and owners.
	"webhookEndpoints":      webhookRoles,
	"webhookDeliveries":     webhookRoles,
	"webhookRecovery":       webhookRoles,
	"createWebhookEndpoint": webhookRoles,
	"updateWebhookEndpoint": webhookRoles,
	"deleteWebhookEndpoint": webhookRoles,
	"rollWebhookSecret":     webhookRoles,
	"verifyWebhookEndpoint": webhookRoles,
	"replayWebhookDelivery": webhookRoles,
	"showEndpointSecret":    webhookRoles,
	"sendTestEvent":         webhookRoles,
	"recoverDeliveries":     webhookRoles,
	// The agent inbox (schema/inbox.graphqls).
	"inbox":                {RoleAgent, RoleAdmin, RoleOwner},
	"inboxCounts":          {RoleAgent, RoleAdmin, RoleOwner},
	"notes":                {RoleAgent, RoleAdmin, RoleOwner},
	"replyRules":           {RoleAgent, RoleAdmin, RoleOwner},
	"contactConversations": {RoleAgent, RoleAdmin, RoleOwner},
	"markConversationRead": {RoleAgent, RoleAdmin, RoleOwner},
	"addNote":              {RoleAgent, RoleAdmin, RoleOwner},
	"setPresence":          {RoleAgent, RoleAdmin, RoleOwner},
	"takeOver":             {RoleAgent, RoleAdmin, RoleOwner},
	"reopenConversation":   {RoleAgent, RoleAdmin, RoleOwner},
	"conversationPresence": {RoleAgent, RoleAdmin, RoleOwner},
	"conversationNotes":    {RoleAgent, RoleAdmin, RoleOwner},
}

// webhookRoles may manage webhook endpoints and read their deliveries.
var webhookRoles = []string{RoleDeveloper, RoleAdmin, RoleOwner}
