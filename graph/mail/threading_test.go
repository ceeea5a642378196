package mail_test

import (
	"strings"
	"testing"

	"github.com/msgsvc/msgsvc/channels/email"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

const sesID = "0100018c1f7e3f3a-8b7f2c1d-4e5f-4a6b-9c8d-7e6f5a4b3c2d-000000"

// Through Amazon SES, which replaces our Message-ID with
// <{id}@email.amazonses.com> and answers the data "250 Ok {id}", a reply
// still joins its thread: by In-Reply-To naming SES's Message-ID alone, or
// by References carrying our own id.
func TestRepliesThreadThroughARelayRewritingMessageID(t *testing.T) {
	api := newLiveEmail(t, func(a *resttest.API) {
		a.Config.Adapters["email"].(*email.Adapter).Relay.RewritesMessageID = true
	})
	api.Sink.ActAsSES(sesID)
	addr := listen(t, api)
	sent := api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "dan@example.com", "from": "support@verified.test", "subject": "Your parcel", "text": "On its way."}), 201, "").Data()
	id, convID := sent["id"].(string), sent["conversation_id"].(string)
	if d, _ := sent["delivery"].(map[string]any); d["provider_message_id"] != "<"+id+"@verified.test>" {
		t.Fatalf("delivery %v", d)
	}
	mails := api.Sink.Mails()
	if !strings.Contains(string(mails[0].Data), "References: <"+id+"@verified.test>") {
		t.Fatalf("no own reference:\n%s", mails[0].Data)
	}
	for i, hdr := range []string{
		// A client that names only the Message-ID it received.
		"In-Reply-To: <" + sesID + "@email.amazonses.com>\r\n",
		// SES in another region, and References as clients build them.
		"References: <" + id + "@verified.test> <" + sesID + "@eu-west-1.amazonses.com>\r\n",
	} {
		raw := "From: dan@example.com\r\nTo: support@verified.test\r\nSubject: Re: Your parcel\r\n" +
			"Message-ID: <d" + string(rune('1'+i)) + "@example.com>\r\n" + hdr + "\r\nThanks!\r\n"
		if err := deliver(t, api, addr, "dan@example.com", []string{"support@verified.test"}, []byte(raw)); err != nil {
			t.Fatal(err)
		}
		if n := len(list(api.Do("GET", "/v1/conversations/"+convID+"/messages", "live_all", nil))); n != 2+i {
			t.Fatalf("reply %d (%s) did not join the thread: %d messages", i, strings.TrimSpace(hdr), n)
		}
	}
	// A reply naming another workspace's SES id, or none, starts its own.
	raw := "From: dan@example.com\r\nTo: support@verified.test\r\nSubject: New\r\nMessage-ID: <d9@example.com>\r\n" +
		"In-Reply-To: <0100018cffffffff-0000@email.amazonses.com>\r\n\r\nHi\r\n"
	if err := deliver(t, api, addr, "dan@example.com", []string{"support@verified.test"}, []byte(raw)); err != nil {
		t.Fatal(err)
	}
	if n := len(list(api.Do("GET", "/v1/conversations/"+convID+"/messages", "live_all", nil))); n != 3 {
		t.Fatalf("an unknown SES id joined the thread: %d messages", n)
	}
}

// Only a participant's mail joins a thread by naming its Message-IDs: the
// conversation's contact or an address in From, To or Cc of one of its
// mails (not the workspace's own). A stranger naming our Message-ID, or the
// customer's, in In-Reply-To or References starts a conversation of its
// own.
func TestStrangerNamingAThreadStartsItsOwnConversation(t *testing.T) {
	api := newLiveEmail(t)
	addr := listen(t, api)
	sent := api.Want(api.Do("POST", "/v1/messages", "live_all", map[string]any{"channel": "email",
		"to": "dan@example.com", "cc": []string{"Eve@example.com"}, "from": "support@verified.test",
		"subject": "Your parcel", "text": "On its way."}), 201, "").Data()
	ours, convID := "<"+sent["id"].(string)+"@verified.test>", sent["conversation_id"].(string)
	n := 1
	for i, c := range []struct {
		from, cc, refs string
		joins          bool
	}{
		{"mallory@example.com", "", "In-Reply-To: " + ours, false},
		{"mallory@example.com", "", "References: <x@example.com> " + ours, false},
		{"support@verified.test", "", "In-Reply-To: " + ours, false}, // our own address, forged
		{"dan@example.com", "frank@example.com", "In-Reply-To: " + ours, true},
		{"mallory@example.com", "", "In-Reply-To: <m3@example.com>", false}, // dan's stored reply
		{"eve@example.com", "", "References: " + ours, true},                // in Cc of our mail
		{"frank@example.com", "", "In-Reply-To: <m3@example.com>", true},    // in Cc of dan's
	} {
		raw := "From: " + c.from + "\r\nTo: support@verified.test\r\n"
		if c.cc != "" {
			raw += "Cc: " + c.cc + "\r\n"
		}
		raw += "Subject: Re: Your parcel\r\nMessage-ID: <m" + string(rune('0'+i)) + "@example.com>\r\n" + c.refs + "\r\n\r\nHello\r\n"
		if err := deliver(t, api, addr, c.from, []string{"support@verified.test"}, []byte(raw)); err != nil {
			t.Fatal(err)
		}
		if c.joins {
			n++
		}
		if got := len(list(api.Do("GET", "/v1/conversations/"+convID+"/messages", "live_all", nil))); got != n {
			t.Fatalf("mail %d from %s (%s): the thread has %d messages, want %d", i, c.from, c.refs, got, n)
		}
	}
	if conv := conversationOf(t, api, "mallory@example.com"); conv["id"] == convID || conv["subject"] != "Re: Your parcel" {
		t.Fatalf("the stranger's conversation %v", conv)
	}
}
