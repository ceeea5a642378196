package whatsapp_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/channels/whatsapp"
)

// A number's throughput.level is its tier in messages a second
// (developers.facebook.com/documentation/business-messaging/whatsapp/throughput).
func TestThroughputOf(t *testing.T) {
	for level, want := range map[string]int{"STANDARD": 80, "HIGH": 1000, "high": 1000, "COEXISTENCE": 20, "": 0, "SOMETHING_NEW": 0} {
		if got := whatsapp.ThroughputOf(level); got != want {
			t.Errorf("%q: %d, want %d", level, got, want)
		}
	}
}
