package instagram

import (
	"testing"

	"github.com/msgsvc/msgsvc/channels/meta"
)

func TestRichDMKinds(t *testing.T) {
	m := &meta.InstagramMessage{MID: "m1", Text: "Love it", ReplyToStory: &meta.InstagramStory{ID: "s1", URL: "https://x/s.jpg"}}
	if typ, rich := richDM(m); typ != "story" || rich.Story == nil || rich.Story.Kind != "reply" || rich.Story.ID != "s1" {
		t.Fatalf("story reply: %s %+v", typ, rich.Story)
	}
	m = &meta.InstagramMessage{MID: "m2", Attachments: []meta.InstagramAttachment{{Type: "ig_reel", URL: "https://x/r.mp4", Title: "T", ID: "r1"}}}
	if typ, rich := richDM(m); typ != "share" || rich.Share == nil || rich.Share.ID != "r1" || rich.Share.Title != "T" {
		t.Fatalf("reel: %s %+v", typ, rich.Share)
	}
	m = &meta.InstagramMessage{MID: "m3", Text: "Red", QuickReplyPayload: "RED", ReplyToMID: "m0"}
	if typ, rich := richDM(m); typ != "interactive" || rich.Interactive.Kind != "quick_reply" || rich.ReplyTo.ProviderMessageID != "m0" {
		t.Fatalf("quick reply: %s %+v", typ, rich)
	}
	m = &meta.InstagramMessage{MID: "m4", IsUnsupported: true}
	if typ, rich := richDM(m); typ != "unsupported" || rich.Unsupported == nil {
		t.Fatalf("unsupported: %s %+v", typ, rich)
	}
	m = &meta.InstagramMessage{MID: "m5", Text: "hi", Referral: &meta.InstagramReferralData{Ref: "r", AdID: "9"}}
	if typ, rich := richDM(m); typ != "" || rich.Referral == nil || rich.Referral.AdID != "9" || rich.Referral.Ref != "r" {
		t.Fatalf("text with referral: %q %+v", typ, rich.Referral)
	}
}
