package main

import (
	"strings"
	"testing"
)

// MSGSVC_EMAIL_REMOTE_IMAGES: block by default, allow or proxy when asked,
// anything else refused with the variable's name.
func TestEmailRemoteImagesSetting(t *testing.T) {
	for value, want := range map[string]string{"": "block", "block": "block", "Allow": "allow", "proxy": "proxy"} {
		c, err := loadConfig(env(map[string]string{"MSGSVC_SECRET": "a-development-secret", "MSGSVC_EMAIL_REMOTE_IMAGES": value}))
		if err != nil || c.Live.EmailRemoteImages != want {
			t.Errorf("%q: %v, %v; want %s", value, c, err, want)
		}
	}
	_, err := loadConfig(env(map[string]string{"MSGSVC_SECRET": "a-development-secret", "MSGSVC_EMAIL_REMOTE_IMAGES": "show"}))
	if err == nil || !strings.HasPrefix(err.Error(), "MSGSVC_EMAIL_REMOTE_IMAGES:") {
		t.Fatalf("show: %v", err)
	}
}
