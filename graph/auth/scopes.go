package auth

import (
	"net"
	"slices"
)

// Scopes are the permissions a key may carry; * is every one.
var Scopes = []string{"*", "conversations:read", "conversations:write", "messages:read", "messages:write",
	"contacts:read", "contacts:write", "webhooks:manage"}

// ValidScope says whether a string names a scope.
func ValidScope(s string) bool { return slices.Contains(Scopes, s) }

// ValidAllowlistEntry says whether an IP allowlist entry is an address or a
// CIDR range.
func ValidAllowlistEntry(entry string) bool {
	if _, _, err := net.ParseCIDR(entry); err == nil {
		return true
	}
	return net.ParseIP(entry) != nil
}
