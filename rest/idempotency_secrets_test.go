package rest_test

import (
	"bytes"
	"testing"

	"github.com/msgsvc/msgsvc/rest/resttest"
)

// A signing secret is never kept in the clear under an Idempotency-Key: the
// stored answer is sealed, and a retry still gets the first answer, secret
// included, as the contract's replay rule says.
func TestIdempotentAnswersKeepNoSecretInTheClear(t *testing.T) {
	t.Parallel()
	w := resttest.NewWorld(t, nil)
	rc := resttest.NewReceiver(t, nil)
	stored := func(key string) []byte {
		var body []byte
		if err := w.Store.DB.Get(&body, `SELECT response_body FROM idempotency_keys WHERE key = $1`, key); err != nil {
			t.Fatal(err)
		}
		return body
	}
	replays := func(method, path, key string, body any) map[string]any {
		first := w.Want(w.Do(method, path, "test_all", body, "Idempotency-Key", key), map[string]int{"create": 201, "roll": 200}[key], "")
		secret, _ := first.Data()["secret"].(string)
		if secret == "" {
			t.Fatalf("%s: no secret in %s", key, first.Raw)
		}
		if raw := stored(key); bytes.Contains(raw, []byte("whsec_")) || bytes.Contains(raw, []byte(secret[len("whsec_"):])) {
			t.Errorf("%s: the stored answer holds the secret in the clear: %s", key, raw)
		}
		again := w.Do(method, path, "test_all", body, "Idempotency-Key", key)
		if again.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(again.Raw, first.Raw) {
			t.Errorf("%s: the retry answered %d %s (replayed %q), want the first answer %s",
				key, again.Status, again.Raw, again.Header.Get("Idempotent-Replayed"), first.Raw)
		}
		return first.Data()
	}
	created := replays("POST", "/v1/webhook-endpoints", "create", map[string]any{"url": rc.URL})
	replays("POST", "/v1/webhook-endpoints/"+created["id"].(string)+"/roll-secret", "roll", map[string]any{"grace_hours": 1})
}
