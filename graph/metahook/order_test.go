package metahook

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

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

// Within a hook, events with a Meta timestamp are taken in its order
// (equal times in the payload's), each among the places such events have;
// events without one keep their place.
func TestInSentOrderSortsByMetaTimestamp(t *testing.T) {
	route := meta.WhatsAppRoute{PhoneNumberID: "106"}
	at := func(s int64) time.Time { return time.Unix(1760000000+s, 0) }
	later := &meta.WhatsAppMessage{WhatsAppRoute: route, From: "155501", ID: "wamid.later", Timestamp: at(20)}
	status := &meta.WhatsAppStatus{WhatsAppRoute: route, RecipientID: "155501", ID: "wamid.ours", Timestamp: at(5)}
	template := &meta.WhatsAppTemplateStatus{}
	first := &meta.WhatsAppMessage{WhatsAppRoute: route, From: "155501", ID: "wamid.first", Timestamp: at(10)}
	second := &meta.WhatsAppMessage{WhatsAppRoute: route, From: "155501", ID: "wamid.second", Timestamp: at(10)}
	untimed := &meta.WhatsAppMessage{WhatsAppRoute: route, From: "155502", ID: "wamid.untimed"}
	events := []meta.Event{later, status, template, first, second, untimed}
	want := []meta.Event{status, first, template, second, later, untimed}
	if got := inSentOrder(events); !slices.Equal(got, want) {
		t.Fatalf("order %v, want %v", ids(got), ids(want))
	}
	if events[0] != later {
		t.Fatal("inSentOrder reordered its argument")
	}
}

// A WhatsApp payload (timestamps in seconds) and an Instagram one
// (milliseconds) listing a customer's later message first are taken in the
// order the customer sent them; the hook is stored as sent at the first.
func TestAPayloadIsTakenInTimestampOrder(t *testing.T) {
	wa := `{"object":"whatsapp_business_account","entry":[{"id":"107","changes":[{"field":"messages","value":{
		"messaging_product":"whatsapp","metadata":{"phone_number_id":"106"},
		"statuses":[{"id":"wamid.ours","recipient_id":"155501","status":"read","timestamp":"1760000001"}],
		"messages":[{"from":"155501","id":"wamid.2","timestamp":"1760000009","type":"text","text":{"body":"two"}},
		{"from":"155501","id":"wamid.1","timestamp":"1760000008","type":"text","text":{"body":"one"}}]}}]}]}`
	ig := `{"object":"instagram","entry":[{"id":"1784","time":1760000099000,"messaging":[
		{"sender":{"id":"ig1"},"recipient":{"id":"1784"},"timestamp":1760000008002,"message":{"mid":"m.2","text":"two"}},
		{"sender":{"id":"ig1"},"recipient":{"id":"1784"},"timestamp":1760000008001,"message":{"mid":"m.1","text":"one"}}]}]}`
	for name, c := range map[string]struct {
		raw   string
		order []string
		first time.Time
	}{
		"whatsapp":  {wa, []string{"wamid.ours", "wamid.1", "wamid.2"}, time.Unix(1760000008, 0)},
		"instagram": {ig, []string{"m.1", "m.2"}, time.UnixMilli(1760000008001)},
	} {
		p, err := meta.ParseWebhook([]byte(c.raw))
		if err != nil {
			t.Fatal(err)
		}
		if got := ids(inSentOrder(p.Events)); !slices.Equal(got, c.order) {
			t.Errorf("%s: order %v, want %v", name, got, c.order)
		}
		if got := firstSent(p); got == nil || !got.Equal(c.first) {
			t.Errorf("%s: first sent %v, want %v (the status's time is not the customer's)", name, got, c.first)
		}
	}
}

// A hook with no customer message of its own time (statuses, comments,
// template updates) counts from its arrival.
func TestFirstSentIgnoresStatusesAndUntimedEvents(t *testing.T) {
	p := &meta.Payload{Events: []meta.Event{
		&meta.WhatsAppStatus{RecipientID: "155501", Timestamp: time.Unix(1760000000, 0)},
		&meta.InstagramRead{SenderID: "ig1", Timestamp: time.Unix(1760000000, 0)},
		&meta.InstagramComment{FromID: "ig1", Time: time.Unix(1760000000, 0)},
		&meta.WhatsAppTemplateStatus{},
	}}
	if got := firstSent(p); got != nil {
		t.Fatalf("first sent %v, want none", got)
	}
}

// Every Instagram messaging event of a customer names the customer, so
// its hook is ordered with the customer's others.
func TestOrderKeysNameEveryInstagramMessagingEvent(t *testing.T) {
	route := meta.InstagramRoute{AccountID: "1784"}
	for _, ev := range []meta.Event{&meta.InstagramPostback{InstagramRoute: route, SenderID: "ig1"},
		&meta.InstagramReferral{InstagramRoute: route, SenderID: "ig1"}, &meta.InstagramEdit{InstagramRoute: route, SenderID: "ig1"},
		&meta.InstagramOther{InstagramRoute: route, SenderID: "ig1"}, &meta.InstagramReaction{InstagramRoute: route, SenderID: "ig1"},
		&meta.InstagramRead{InstagramRoute: route, SenderID: "ig1"}} {
		if got := eventKeys(ev); !slices.Equal(got, []string{"instagram:1784:ig1"}) {
			t.Errorf("%T keys %v", ev, got)
		}
	}
}

// ids names events by their message id, for a failure's message.
func ids(events []meta.Event) []string {
	var out []string
	for _, ev := range events {
		switch e := ev.(type) {
		case *meta.WhatsAppMessage:
			out = append(out, e.ID)
		case *meta.WhatsAppStatus:
			out = append(out, e.ID)
		case *meta.InstagramMessage:
			out = append(out, e.MID)
		default:
			out = append(out, fmt.Sprintf("%T", ev))
		}
	}
	return out
}
