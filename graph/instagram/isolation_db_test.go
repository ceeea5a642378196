package instagram_test

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/meta"
	"github.com/msgsvc/msgsvc/graph/event"
	"github.com/msgsvc/msgsvc/graph/instagram"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

const hostileIGID = "17841499999999999"

// victimState is what a hostile event must leave alone: the victim's
// inbound DM (text, deleted), its outbound DM (status) and its events.
type victimState struct {
	text    string
	deleted bool
	status  string
	events  int
}

func victimNow(t *testing.T, e *env) victimState {
	t.Helper()
	var v victimState
	if err := e.store.DB.QueryRow(`SELECT coalesce(text, ''), deleted FROM messages WHERE id = 'msg_victim_in'`).
		Scan(&v.text, &v.deleted); err != nil {
		t.Fatal(err)
	}
	if err := e.store.DB.Get(&v.status, `SELECT status FROM messages WHERE id = 'msg_victim_out'`); err != nil {
		t.Fatal(err)
	}
	if err := e.store.DB.Get(&v.events, `SELECT count(*) FROM events WHERE workspace_id = $1`, e.scope.WorkspaceID); err != nil {
		t.Fatal(err)
	}
	return v
}

// isolated seeds the fixture (the victim: its first Instagram account) with
// an inbound DM mid.victim.in and an outbound DM mid.victim.out, and a
// hostile workspace with an Instagram account of its own; it returns the
// service and the hostile account.
func isolated(t *testing.T) (*env, *instagram.Service, *repo.Account) {
	t.Helper()
	e := setup(t)
	clock := resttest.NewClock(resttest.Epoch)
	conv := repotest.Conversation(e.scope.WorkspaceID, "conv_victim", "instagram", true)
	conv.AccountID, conv.WebsiteID = e.acc.ID, e.acc.WebsiteID
	in := repotest.Message(conv, "msg_victim_in", "inbound", "received", "")
	out := repotest.Message(conv, "msg_victim_out", "outbound", "sent", `{"provider_message_id": "mid.victim.out"}`)
	repotest.Thread(t, e.store, conv, in, out)
	for mid, id := range map[string]string{"mid.victim.in": "msg_victim_in", "mid.victim.out": "msg_victim_out"} {
		if _, err := e.store.InsertProviderMessage(t.Context(), &repo.ProviderMessage{Channel: "instagram", ProviderID: mid,
			MessageID: id, Status: "sent"}); err != nil {
			t.Fatal(err)
		}
	}
	hostileConv := repotest.Conversation("ws_hostile", "conv_hostile", "instagram", true)
	hostileConv.WebsiteID = "web_hostile"
	repotest.Thread(t, e.store, hostileConv)
	hostile := &repo.Account{WorkspaceID: "ws_hostile", ID: "ig_hostile", Channel: "instagram", WebsiteID: "web_hostile",
		Username: "hostile", Status: "connected", Processing: false}
	if err := e.store.UpsertAccount(t.Context(), hostile); err != nil {
		t.Fatal(err)
	}
	svc := &instagram.Service{Inbound: e.svc.Inbound, Store: e.store, Events: event.Recorder{Clock: clock.Now}}
	return e, svc, hostile
}

// An event a hostile workspace's account routes (its own app secret signs
// it, its own account is entry[].id) that names another workspace's mids
// changes none of that workspace's messages and announces nothing there:
// an edit, an unsent DM, a read, a reaction, an echo, a postback, a reply.
func TestHostileEventsNamingAnotherWorkspacesMids(t *testing.T) {
	at := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	route := meta.InstagramRoute{AccountID: hostileIGID}
	unsent := &meta.InstagramMessage{InstagramRoute: route, SenderID: "IGSID-h", RecipientID: hostileIGID,
		MID: "mid.victim.in", IsDeleted: true, Timestamp: at}
	echo := &meta.InstagramMessage{InstagramRoute: route, SenderID: hostileIGID, RecipientID: "IGSID-h",
		MID: "mid.victim.out", IsEcho: true, Text: "echoed", Timestamp: at}
	reply := &meta.InstagramMessage{InstagramRoute: route, SenderID: "IGSID-h", RecipientID: hostileIGID,
		MID: "mid.hostile.1", ReplyToMID: "mid.victim.out", Text: "re", Timestamp: at}
	for _, c := range []struct {
		name string
		ev   meta.Event
	}{
		{"edit", &meta.InstagramEdit{InstagramRoute: route, SenderID: "IGSID-h", MID: "mid.victim.in", Text: "pwned", Timestamp: at}},
		{"unsent", unsent},
		{"read", &meta.InstagramRead{InstagramRoute: route, SenderID: "IGSID-h", MID: "mid.victim.out", Timestamp: at}},
		{"reaction", &meta.InstagramReaction{InstagramRoute: route, SenderID: "IGSID-h", MID: "mid.victim.in", Action: "react",
			Emoji: "love", Timestamp: at}},
		{"echo", echo},
		{"postback", &meta.InstagramPostback{InstagramRoute: route, SenderID: "IGSID-h", MID: "mid.victim.in", Title: "Yes",
			Payload: "YES", Timestamp: at}},
		{"reply", reply},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, svc, hostile := isolated(t)
			before := victimNow(t, e)
			err := svc.HandleInstagram(t.Context(), hostile, &channels.Credentials{Login: "instagram", IGUserID: hostileIGID}, c.ev)
			if err != nil {
				t.Fatal(err)
			}
			if after := victimNow(t, e); after != before {
				t.Errorf("the victim's data changed: %+v, was %+v", after, before)
			}
			var leaked int
			if err := e.store.DB.Get(&leaked, `SELECT count(*) FROM messages WHERE workspace_id = 'ws_hostile'
				AND content::text LIKE '%msg_victim%'`); err != nil || leaked != 0 {
				t.Errorf("%d hostile messages name a victim's message id (%v)", leaked, err)
			}
		})
	}
}

// The same edit, unsent and read routed by the victim's own account apply:
// the checks above can fail.
func TestOwnEventsNamingOwnMidsApply(t *testing.T) {
	e, svc, _ := isolated(t)
	at := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	route := meta.InstagramRoute{AccountID: ownID}
	creds := &channels.Credentials{Login: "instagram", IGUserID: ownID}
	for _, ev := range []meta.Event{
		&meta.InstagramEdit{InstagramRoute: route, SenderID: "IGSID-v", MID: "mid.victim.in", Text: "edited", Timestamp: at},
		&meta.InstagramRead{InstagramRoute: route, SenderID: "IGSID-v", MID: "mid.victim.out", Timestamp: at},
		&meta.InstagramMessage{InstagramRoute: route, SenderID: "IGSID-v", MID: "mid.victim.in", IsDeleted: true, Timestamp: at},
	} {
		if err := svc.HandleInstagram(t.Context(), e.acc, creds, ev); err != nil {
			t.Fatal(err)
		}
	}
	got := victimNow(t, e)
	if got.text != "edited" || !got.deleted || got.status != "read" || got.events != 3 {
		t.Errorf("the account's own events: %+v, want edited, deleted, read and 3 events", got)
	}
}

// A mid another workspace already holds does not keep a DM from an
// account's own workspace: the dedupe of retried webhooks is per
// workspace, so no tenant can claim an id ahead of another.
func TestAMidOfAnotherWorkspaceDoesNotDropADM(t *testing.T) {
	e, svc, hostile := isolated(t)
	at := time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)
	first := &meta.InstagramMessage{InstagramRoute: meta.InstagramRoute{AccountID: hostileIGID}, SenderID: "IGSID-v",
		RecipientID: hostileIGID, MID: "mid.shared", Text: "claimed", Timestamp: at}
	if err := svc.HandleInstagram(t.Context(), hostile, &channels.Credentials{Login: "instagram", IGUserID: hostileIGID}, first); err != nil {
		t.Fatal(err)
	}
	dm := &meta.InstagramMessage{InstagramRoute: meta.InstagramRoute{AccountID: ownID}, SenderID: "IGSID-v", RecipientID: ownID,
		MID: "mid.shared", Text: "mine", Timestamp: at}
	for range 2 { // Meta retries: the second copy changes nothing
		if err := svc.HandleInstagram(t.Context(), e.acc, &channels.Credentials{Login: "instagram", IGUserID: ownID}, dm); err != nil {
			t.Fatal(err)
		}
	}
	var n int
	if err := e.store.DB.Get(&n, `SELECT count(*) FROM messages WHERE workspace_id = $1 AND text = 'mine'`, e.scope.WorkspaceID); err != nil || n != 1 {
		t.Errorf("%d copies of the DM in its workspace (%v), want 1", n, err)
	}
}
