package main

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels/instagram"
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
