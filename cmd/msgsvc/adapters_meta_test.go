package main

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/instagram"
	"github.com/msgsvc/msgsvc/graph"
)

func TestInstagramAdapterFollowsConfig(t *testing.T) {
	l := LiveConfig{MetaGraphURL: "http://meta.test", InstagramGraphURL: "http://ig.test", MetaAPIVersion: "v23.0", ProviderTimeout: 3 * time.Second}
	a, ok := instagramAdapter(l).(*instagram.Adapter)
	if !ok {
		t.Fatalf("adapter %T", instagramAdapter(l))
	}
	if a.Graph.BaseURL != "http://meta.test" || a.Instagram.BaseURL != "http://ig.test" ||
		a.Instagram.Version != "v23.0" || a.Graph.Timeout != 3*time.Second {
		t.Fatalf("graph %+v instagram %+v", a.Graph, a.Instagram)
	}
}

// Pacing is off unless MSGSVC_WHATSAPP_PACE sets a rate.
func TestWhatsAppPacingFollowsConfig(t *testing.T) {
	for _, pace := range []int{0, 80} {
		r := &graph.Config{Adapters: map[string]channels.Adapter{}, Clock: time.Now}
		wireMeta(r, &Config{Live: LiveConfig{WhatsAppPace: pace}}, nil)
		switch {
		case pace == 0 && r.Pacer != nil:
			t.Errorf("no MSGSVC_WHATSAPP_PACE, yet a pacer %+v", r.Pacer)
		case pace > 0 && (r.Pacer == nil || r.Pacer.Rate != pace):
			t.Errorf("MSGSVC_WHATSAPP_PACE=%d gave pacer %+v", pace, r.Pacer)
		}
	}
}
