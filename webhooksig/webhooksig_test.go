package webhooksig_test

import (
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/webhooksig"
)

// The vector was computed independently with Python's hmac module:
// hmac.new(secret, b"1790000000." + body, sha256).hexdigest().
const (
	vectorSecret = "whsec_0123456789abcdef0123456789abcdef"
	vectorOld    = "whsec_fedcba9876543210fedcba9876543210"
	vectorBody   = `{"id":"evt_test","type":"message.received"}`
	vectorUnix   = 1790000000
	vectorSig    = "b4b2e298ed00c99c47d2619f247625ef7e5c1bc9e091c0a042287f0e6e0989dd"
	vectorOldSig = "cbeebc6655f252fd57a0985d51dd78cb65d65b94e7d9bc1c31c57359e98d0179"
)

var vectorTime = time.Unix(vectorUnix, 0)

func TestSignMatchesKnownVector(t *testing.T) {
	if got := webhooksig.Sign(vectorSecret, vectorUnix, []byte(vectorBody)); got != vectorSig {
		t.Fatalf("Sign = %s, want %s", got, vectorSig)
	}
	want := "t=1790000000,v1=" + vectorSig
	if got := webhooksig.Header(vectorTime, []byte(vectorBody), vectorSecret); got != want {
		t.Fatalf("Header = %s, want %s", got, want)
	}
}

func TestHeaderDuringRollCarriesBothSignatures(t *testing.T) {
	got := webhooksig.Header(vectorTime, []byte(vectorBody), vectorSecret, vectorOld)
	want := "t=1790000000,v1=" + vectorSig + ",v1=" + vectorOldSig
	if got != want {
		t.Fatalf("Header = %s, want %s", got, want)
	}
	for _, secret := range []string{vectorSecret, vectorOld} {
		if err := webhooksig.Verify(got, []byte(vectorBody), vectorTime, secret); err != nil {
			t.Errorf("Verify with %s: %v", secret, err)
		}
	}
}

func TestVerify(t *testing.T) {
	body := []byte(vectorBody)
	good := "t=1790000000,v1=" + vectorSig
	cases := []struct {
		name    string
		header  string
		body    []byte
		now     time.Time
		secrets []string
		want    error
	}{
		{"valid", good, body, vectorTime, []string{vectorSecret}, nil},
		{"valid with spaces", "t=1790000000, v1=" + vectorSig, body, vectorTime, []string{vectorSecret}, nil},
		{"second of two secrets", good, body, vectorTime, []string{vectorOld, vectorSecret}, nil},
		{"4m59s old", good, body, vectorTime.Add(4*time.Minute + 59*time.Second), []string{vectorSecret}, nil},
		{"5m01s old", good, body, vectorTime.Add(5*time.Minute + time.Second), []string{vectorSecret}, webhooksig.ErrTimestamp},
		{"5m01s ahead", good, body, vectorTime.Add(-5*time.Minute - time.Second), []string{vectorSecret}, webhooksig.ErrTimestamp},
		{"wrong secret", good, body, vectorTime, []string{vectorOld}, webhooksig.ErrMismatch},
		{"body changed", good, []byte(vectorBody + " "), vectorTime, []string{vectorSecret}, webhooksig.ErrMismatch},
		{"timestamp changed", "t=1790000001,v1=" + vectorSig, body, vectorTime, []string{vectorSecret}, webhooksig.ErrMismatch},
		{"empty", "", body, vectorTime, []string{vectorSecret}, webhooksig.ErrNoSignature},
		{"no timestamp", "v1=" + vectorSig, body, vectorTime, []string{vectorSecret}, webhooksig.ErrMalformed},
		{"no v1", "t=1790000000", body, vectorTime, []string{vectorSecret}, webhooksig.ErrMalformed},
		{"garbage", "nonsense", body, vectorTime, []string{vectorSecret}, webhooksig.ErrMalformed},
	}
	for _, c := range cases {
		if got := webhooksig.Verify(c.header, c.body, c.now, c.secrets...); !errors.Is(got, c.want) {
			t.Errorf("%s: Verify = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestParseRequest(t *testing.T) {
	body := `{"id":"evt_1","type":"endpoint.verification","created_at":"2026-10-01T12:34:56.789Z",` +
		`"channel":null,"website_id":null,"livemode":false,"data":{"challenge":"abc"}}`
	req := httptest.NewRequest("POST", "/hook", strings.NewReader(body))
	req.Header.Set(webhooksig.HeaderName, webhooksig.Header(time.Now(), []byte(body), vectorSecret))
	e, err := webhooksig.ParseRequest(req, vectorSecret)
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != "evt_1" || e.Type != "endpoint.verification" || e.Challenge() != "abc" || e.Channel != nil ||
		!e.CreatedAt.Equal(time.Date(2026, 10, 1, 12, 34, 56, 789e6, time.UTC)) {
		t.Fatalf("parsed %+v", e)
	}
	req = httptest.NewRequest("POST", "/hook", strings.NewReader(body))
	req.Header.Set(webhooksig.HeaderName, webhooksig.Header(time.Now(), []byte(body), vectorOld))
	if _, err := webhooksig.ParseRequest(req, vectorSecret); !errors.Is(err, webhooksig.ErrMismatch) {
		t.Fatalf("ParseRequest with the wrong secret: %v", err)
	}
}
