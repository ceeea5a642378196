package repo

import (
	"strings"
	"testing"
)

// The check names a column of the UPDATE: anything but the three checks is
// refused before a statement is made of it.
func TestSetAccountCheckRefusesAnUnknownColumn(t *testing.T) {
	for _, check := range []string{"status", "subscription = NULL, status", "reauth;", ""} {
		func() {
			defer func() {
				if v := recover(); v != nil {
					t.Errorf("check %q reached the database (%v); want it refused", check, v)
				}
			}()
			err := Queries{}.SetAccountCheck(t.Context(), "ws_1", "acc_1", check, AccountCheck{Status: "ok"})
			if err == nil || !strings.Contains(err.Error(), "unknown account check") {
				t.Errorf("check %q: %v; want it refused as unknown", check, err)
			}
		}()
	}
}
