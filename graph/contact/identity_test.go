package contact

import (
	"testing"

	"time"

	"github.com/msgsvc/msgsvc/repo"
)

// A WhatsApp identity is a phone or a business-scoped user id, each in its
// own column.
func TestWhatsAppIdentityColumn(t *testing.T) {
	if c := IdentityColumnOf("whatsapp", "US.13491208655302741918"); c != "whatsapp_user_id" {
		t.Errorf("user id column %q", c)
	}
	if c := IdentityColumnOf("whatsapp", "+15551234567"); c != "phone" {
		t.Errorf("phone column %q", c)
	}
	ct := FromChannel(repo.Scope{WorkspaceID: "ws"}, "whatsapp", "US.13491208655302741918", "Ana", "captured", time.Unix(1700000000, 0))
	if ct.Phone != nil || ct.WhatsAppUserID == nil || *ct.WhatsAppUserID != "US.13491208655302741918" {
		t.Errorf("contact %+v", ct)
	}
}
