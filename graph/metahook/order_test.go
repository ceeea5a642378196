package metahook

import (
	"slices"
	"sync"
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta"
)

func TestOrderKeysNameEachCustomerOnce(t *testing.T) {
	p := &meta.Payload{Events: []meta.Event{
		&meta.WhatsAppMessage{WhatsAppRoute: meta.WhatsAppRoute{PhoneNumberID: "106"}, From: "155501"},
		&meta.WhatsAppStatus{WhatsAppRoute: meta.WhatsAppRoute{PhoneNumberID: "106"}, RecipientID: "155501"},
		&meta.WhatsAppStatus{WhatsAppRoute: meta.WhatsAppRoute{PhoneNumberID: "106"}, RecipientID: "155502"},
		&meta.WhatsAppTemplateStatus{},
		&meta.InstagramMessage{InstagramRoute: meta.InstagramRoute{AccountID: "1784"}, SenderID: "ig1", RecipientID: "1784"},
		&meta.InstagramMessage{InstagramRoute: meta.InstagramRoute{AccountID: "1784"}, SenderID: "1784", RecipientID: "ig2", IsEcho: true},
	}}
	want := []string{"instagram:1784:ig1", "instagram:1784:ig2", "whatsapp:106:155501", "whatsapp:106:155502"}
	if got := orderKeys(p); !slices.Equal(got, want) {
		t.Fatalf("orderKeys %v, want %v", got, want)
	}
}

// A WhatsApp customer's hooks name its phone and its business-scoped user
// id, so a hook without the phone follows one with both.
func TestOrderKeysNameTheWhatsAppUserID(t *testing.T) {
	route := meta.WhatsAppRoute{PhoneNumberID: "106"}
	withPhone := orderKeys(&meta.Payload{Events: []meta.Event{&meta.WhatsAppMessage{WhatsAppRoute: route, From: "155501", UserID: "US.1"}}})
	noPhone := orderKeys(&meta.Payload{Events: []meta.Event{
		&meta.WhatsAppMessage{WhatsAppRoute: route, UserID: "US.1"},
		&meta.WhatsAppStatus{WhatsAppRoute: route, RecipientUserID: "US.1"},
		&meta.WhatsAppUserPreference{WhatsAppRoute: route, UserID: "US.1"},
	}})
	if !slices.Equal(withPhone, []string{"whatsapp:106:155501", "whatsapp:106:US.1"}) || !slices.Equal(noPhone, []string{"whatsapp:106:US.1"}) {
		t.Fatalf("keys with the phone %v, without %v", withPhone, noPhone)
	}
}

// Hooks of one customer never run side by side in a process; crosswise
// key sets never deadlock.
func TestLockKeysSerialisesACustomer(t *testing.T) {
	var mu sync.Mutex
	inside, most := 0, 0
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys := []string{"whatsapp:1:a", "whatsapp:1:b"}
			if i%2 == 1 {
				keys = []string{"whatsapp:1:b", "whatsapp:1:a"}
			}
			unlock, _ := lockKeys(keys)
			mu.Lock()
			inside++
			most = max(most, inside)
			mu.Unlock()
			mu.Lock()
			inside--
			mu.Unlock()
			unlock()
		}()
	}
	wg.Wait()
	if most != 1 {
		t.Fatalf("%d hooks of one customer ran at once, want 1", most)
	}
}
