package auth

import (
	"slices"
	"testing"
)

// The webhook fields are the developers', admins' and owners'; an agent
// may use none of them (app.md section 1).
func TestWebhookFieldRoles(t *testing.T) {
	fields := []string{"webhookEndpoints", "webhookDeliveries", "webhookRecovery", "createWebhookEndpoint",
		"updateWebhookEndpoint", "deleteWebhookEndpoint", "rollWebhookSecret", "verifyWebhookEndpoint",
		"replayWebhookDelivery", "showEndpointSecret", "sendTestEvent", "recoverDeliveries"}
	for _, f := range fields {
		roles, ok := fieldRoles[f]
		if !ok {
			t.Errorf("%s is missing from fieldRoles", f)
			continue
		}
		for _, r := range []string{RoleDeveloper, RoleAdmin, RoleOwner} {
			if !slices.Contains(roles, r) {
				t.Errorf("%s refuses %s", f, r)
			}
		}
		if slices.Contains(roles, RoleAgent) {
			t.Errorf("%s lets an agent in", f)
		}
	}
}
