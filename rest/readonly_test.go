package rest_test

import (
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// A database that takes no writes (a standby; here a database with
// default_transaction_read_only on) is an outage: a write answers 503
// service_unavailable with Retry-After, never 500, and reads go on.
func TestReadOnlyDatabaseIsAnOutage(t *testing.T) {
	api := resttest.New(t)
	var name string
	if err := api.Store.DB.Get(&name, `SELECT current_database()`); err != nil {
		t.Fatal(err)
	}
	if _, err := api.Store.DB.Exec(`ALTER DATABASE ` + name + ` SET default_transaction_read_only = on`); err != nil {
		t.Fatal(err)
	}
	// New connections get the setting: drop the idle ones.
	api.Store.DB.SetMaxIdleConns(0)
	api.Store.DB.SetMaxIdleConns(40)
	r := api.Want(api.Do("POST", "/v1/webhook-endpoints", "test_all", map[string]any{"url": "https://example.com/h", "events": []string{"*"}}),
		503, "service_unavailable")
	if got := r.Header.Get("Retry-After"); got != "5" {
		t.Fatalf("Retry-After %q, want 5", got)
	}
	api.Want(api.Do("GET", "/v1/conversations", "test_all", nil), 200, "")
}

// A database behind the binary's migrations (a table or column the binary
// uses is missing: `msgsvc migrate` did not run) answers 503, not 500.
func TestSchemaBehindIsAnOutage(t *testing.T) {
	api := resttest.New(t)
	if _, err := api.Store.DB.Exec(`ALTER TABLE webhook_endpoints RENAME TO webhook_endpoints_old`); err != nil {
		t.Fatal(err)
	}
	api.Want(api.Do("GET", "/v1/webhook-endpoints", "test_all", nil), 503, "service_unavailable")
	api.Want(api.Do("GET", "/v1/conversations", "test_all", nil), 200, "")
}
