package member

import (
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/repo"
)

var t0 = time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)

// A code works once, for CodeTTL, until MaxWrongTries wrong tries end it.
func TestCodeVerdict(t *testing.T) {
	used := t0.Add(time.Minute)
	fresh := func() *repo.MemberCode { return &repo.MemberCode{CreatedAt: t0, ExpiresAt: t0.Add(CodeTTL)} }
	for _, c := range []struct {
		name    string
		code    func() *repo.MemberCode
		at      time.Time
		matches bool
		want    string
	}{
		{"right, at once", fresh, t0, true, codeOK},
		{"right, a moment before it ends", fresh, t0.Add(CodeTTL - time.Millisecond), true, codeOK},
		{"right, when it ends", fresh, t0.Add(CodeTTL), true, codeExpired},
		{"wrong", fresh, t0.Add(time.Minute), false, codeWrong},
		{"right after 4 wrong tries", func() *repo.MemberCode { c := fresh(); c.WrongTries = 4; return c }, t0, true, codeOK},
		{"right after 5 wrong tries", func() *repo.MemberCode { c := fresh(); c.WrongTries = 5; return c }, t0, true, codeSpent},
		{"right, used", func() *repo.MemberCode { c := fresh(); c.UsedAt = &used; return c }, t0.Add(2 * time.Minute), true, codeUsed},
	} {
		if got := verdict(c.code(), c.at, c.matches); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// At most CodesPerHour codes an hour.
func TestCodeLimit(t *testing.T) {
	if overLimit(CodesPerHour-1) || !overLimit(CodesPerHour) {
		t.Fatalf("the limit is %d codes an hour", CodesPerHour)
	}
}

// A session lives SessionIdle since last seen and SessionLifetime at most;
// last_seen_at is written at most once per TouchEvery.
func TestSessionState(t *testing.T) {
	s := &repo.MemberSession{CreatedAt: t0, LastSeenAt: t0, ExpiresAt: t0.Add(SessionLifetime)}
	for _, c := range []struct {
		name         string
		lastSeen, at time.Time
		alive, touch bool
	}{
		{"at once", t0, t0, true, false},
		{"59 s later", t0, t0.Add(59 * time.Second), true, false},
		{"a minute later", t0, t0.Add(time.Minute), true, true},
		{"idle almost 12 h", t0, t0.Add(SessionIdle - time.Millisecond), true, true},
		{"idle 12 h", t0, t0.Add(SessionIdle), false, false},
		{"used every hour, at 7 days", t0.Add(SessionLifetime - time.Hour), t0.Add(SessionLifetime), false, false},
		{"used every hour, just before 7 days", t0.Add(SessionLifetime - time.Hour), t0.Add(SessionLifetime - time.Millisecond), true, true},
	} {
		s.LastSeenAt = c.lastSeen
		alive, touch := sessionState(s, c.at)
		if alive != c.alive || touch != c.touch {
			t.Errorf("%s: alive %v touch %v, want %v %v", c.name, alive, touch, c.alive, c.touch)
		}
	}
}

// A step-up counts for StepUpTTL.
func TestStepUpFresh(t *testing.T) {
	if !stepUpFresh(t0, t0.Add(StepUpTTL-time.Millisecond)) || stepUpFresh(t0, t0.Add(StepUpTTL)) {
		t.Fatal("a step-up counts for 10 minutes")
	}
}

// Codes are 6 digits, stored as an HMAC that depends on the secret and the
// code's id.
func TestCodeShapeAndHash(t *testing.T) {
	for range 50 {
		c, err := newCode()
		if err != nil || len(c) != 6 || c[0] < '0' || c[0] > '9' {
			t.Fatalf("code %q, %v", c, err)
		}
	}
	a, b := &Service{Secret: "one"}, &Service{Secret: "two"}
	if a.hash("mcd_1", "123456") == b.hash("mcd_1", "123456") || a.hash("mcd_1", "123456") == a.hash("mcd_2", "123456") ||
		a.hash("mcd_1", "123456") == "123456" {
		t.Fatal("the hash must depend on the secret and the id")
	}
}
