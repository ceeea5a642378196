package rest

import (
	"bytes"
	"testing"

	"github.com/msgsvc/msgsvc/graph"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/repo"
)

func TestStoredAnswersAreSealedToTheirKey(t *testing.T) {
	key, err := seal.New("", "a-service-secret")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Resolver: &graph.Resolver{Seal: key}}
	answer := []byte(`{"data":{"id":"we_1","secret":"whsec_0123456789abcdef0123456789abcdef"}}`)
	rec := &repo.IdempotencyRecord{APIKeyID: "key_a", Key: "create-1"}
	sealed, err := s.sealAnswer(rec, answer)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("whsec_")) || bytes.Contains(sealed, []byte("0123456789abcdef")) {
		t.Fatalf("the sealed answer shows the secret: %s", sealed)
	}
	stored := func(apiKeyID, k string, body []byte, sealed bool) *repo.IdempotencyRecord {
		return &repo.IdempotencyRecord{APIKeyID: apiKeyID, Key: k, ResponseBody: body, ResponseSealed: sealed}
	}
	if got, err := s.openAnswer(stored("key_a", "create-1", sealed, true)); err != nil || !bytes.Equal(got, answer) {
		t.Errorf("openAnswer = %s, %v; want the first answer", got, err)
	}
	// Copied under another API key or Idempotency-Key, it does not open.
	for _, other := range [][2]string{{"key_b", "create-1"}, {"key_a", "create-2"}} {
		if got, err := s.openAnswer(stored(other[0], other[1], sealed, true)); err == nil {
			t.Errorf("the answer opened under %v: %s", other, got)
		}
	}
	// Answers stored before sealing began replay as they are.
	if got, err := s.openAnswer(stored("key_a", "old", []byte(`{"data":{}}`), false)); err != nil || string(got) != `{"data":{}}` {
		t.Errorf("a plain stored answer: %s, %v", got, err)
	}
	// Without an encryption key nothing is sealed, so nothing is stored.
	if _, err := (&Server{Resolver: &graph.Resolver{}}).sealAnswer(rec, answer); err == nil {
		t.Error("an answer was sealed without a key")
	}
}
