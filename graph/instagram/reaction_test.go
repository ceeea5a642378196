package instagram_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta"
)

func TestOwnReactionIgnored(t *testing.T) {
	svc, _, rcv := newService()
	own := &meta.InstagramReaction{InstagramRoute: meta.InstagramRoute{AccountID: ownID}, SenderID: ownID, MID: "m1", Action: "react", Emoji: "❤️"}
	if err := handle(t, svc, own); err != nil || len(rcv.got) != 0 {
		t.Fatalf("own reaction: %v, %d received", err, len(rcv.got))
	}
	theirs := &meta.InstagramReaction{InstagramRoute: meta.InstagramRoute{AccountID: ownID}, SenderID: "IGSID-1", MID: "m1", Action: "react", Emoji: "❤️"}
	if err := handle(t, svc, theirs); err != nil || len(rcv.got) != 1 || rcv.got[0].Type != "reaction" || rcv.got[0].Rich.Reaction.Emoji != "❤️" {
		t.Fatalf("customer's reaction: %v, %+v", err, rcv.got)
	}
}
