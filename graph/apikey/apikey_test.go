package apikey_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/graph/apikey"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/seed/seedtest"
	"github.com/msgsvc/msgsvc/internal/apierr"
	"github.com/msgsvc/msgsvc/internal/apierr/apierrtest"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
)

func TestMain(m *testing.M) { repotest.Main(m) }

var epoch = time.Date(2026, 10, 15, 12, 0, 0, 0, time.UTC)

// stepUp is the test double of member.Service's step-up: it grants the
// purposes in granted and records what it was asked.
type stepUp struct {
	granted map[string]bool
	asked   []string
}

func (s *stepUp) RequireStepUp(_ context.Context, purpose string) error {
	s.asked = append(s.asked, purpose)
	if !s.granted[purpose] {
		return apierr.New(apierr.StepUpRequired, "A fresh emailed code for %s is needed.", purpose)
	}
	return nil
}

// changes counts the key change notices.
type changes struct{ n int }

func (c *changes) KeysChanged(context.Context) { c.n++ }

type world struct {
	store   *repo.Store
	now     time.Time
	svc     *apikey.Service
	stepUp  *stepUp
	changes *changes
	auth    *auth.Authenticator
}

func newWorld(t *testing.T) *world {
	w := &world{now: epoch, stepUp: &stepUp{granted: map[string]bool{}}, changes: &changes{}}
	clock := func() time.Time { return w.now }
	w.store = seedtest.Store(t, clock)
	w.svc = &apikey.Service{Store: w.store, Clock: clock, StepUp: w.stepUp, Changes: w.changes}
	w.auth = &auth.Authenticator{Keys: w.store, Clock: clock}
	return w
}

// create makes a key with step-up granted.
func (w *world) create(t *testing.T, ctx context.Context) *model.CreatedAPIKey {
	t.Helper()
	w.stepUp.granted[apikey.PurposeCreate] = true
	created, err := w.svc.Create(ctx, input())
	if err != nil {
		t.Fatal(err)
	}
	return created
}

func member(role string) context.Context {
	return auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_main", MemberID: "mem_" + role, Role: role})
}

func input() model.CreateAPIKeyInput {
	return model.CreateAPIKeyInput{Name: "Zapier", Mode: "test", Scopes: []string{"conversations:read"}}
}

func TestCreateNeedsStepUp(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := member(auth.RoleDeveloper)
	_, err := w.svc.Create(ctx, input())
	apierrtest.Want(t, err, apierr.StepUpRequired, "create_key")
	if len(w.stepUp.asked) != 1 || w.stepUp.asked[0] != apikey.PurposeCreate {
		t.Errorf("asked %v, want [create_key]", w.stepUp.asked)
	}
	// A code verified for another purpose does not count.
	w.stepUp.granted[apikey.PurposeRoll] = true
	_, err = w.svc.Create(ctx, input())
	apierrtest.Want(t, err, apierr.StepUpRequired, "")
	keys, _ := w.store.APIKeyRecords(ctx, "ws_main")
	for _, k := range keys {
		if k.Name == "Zapier" {
			t.Fatalf("a key was created without step-up: %+v", k)
		}
	}

	w.stepUp.granted[apikey.PurposeCreate] = true
	created, err := w.svc.Create(ctx, input())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(created.Secret, "svc_test_") || !auth.ValidSecret(created.Secret) {
		t.Errorf("secret %q", created.Secret)
	}
	k := created.Key
	if k.Status != "active" || k.Prefix != "svc_test_" || k.Last4 != created.Secret[len(created.Secret)-4:] || k.Mode != "test" {
		t.Errorf("key %+v", k)
	}
	a, _, err := w.auth.Authenticate(ctx, created.Secret, nil)
	if err != nil || a.KeyID != k.ID || a.Livemode || !a.HasScope("conversations:read") || a.HasScope("messages:write") {
		t.Fatalf("the new secret authenticates as %+v, %v", a, err)
	}
	stored, err := w.store.APIKeyRecord(ctx, "ws_main", k.ID, false)
	if err != nil || stored.SecretHash != auth.HashSecret(created.Secret) || strings.Contains(stored.SecretHash, created.Secret) {
		t.Errorf("stored %+v, %v: want only the hash", stored, err)
	}
	if w.changes.n != 1 {
		t.Errorf("%d key change notices, want 1", w.changes.n)
	}
	wantOwnerMail(t, w, "API key created: Zapier", created.Secret)
	// The list shows it, never a secret.
	list, err := w.svc.List(ctx)
	if err != nil || len(list) == 0 || list[0].ID != k.ID {
		t.Fatalf("list %v, %v", list, err)
	}
}

// wantOwnerMail checks that the owner was mailed about a key, without its
// secret.
func wantOwnerMail(t *testing.T, w *world, subject, secret string) {
	t.Helper()
	mails, err := w.store.OutboxEmails(context.Background(), "ws_main")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mails {
		if m.Subject == subject && m.ToAddress == "owner@main.test" {
			if strings.Contains(m.Body, secret) || strings.Contains(m.Body, secret[9:]) {
				t.Errorf("the notice holds the secret: %s", m.Body)
			}
			return
		}
	}
	t.Errorf("no owner notice %q among %+v", subject, mails)
}

func TestTheAdminTokenNeedsNoStepUp(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_main", Admin: true})
	in := input()
	in.Mode = "live"
	created, err := w.svc.Create(ctx, in)
	if err != nil || !strings.HasPrefix(created.Secret, "svc_live_") {
		t.Fatalf("%+v, %v", created, err)
	}
	if len(w.stepUp.asked) != 0 {
		t.Errorf("the admin token was asked for step-up: %v", w.stepUp.asked)
	}
	// Without a step-up service wired, members are refused.
	w.svc.StepUp = nil
	_, err = w.svc.Create(member(auth.RoleOwner), input())
	apierrtest.Want(t, err, apierr.StepUpRequired, "")
}

func TestRollKeepsTheOldSecretForTheGracePeriod(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := member(auth.RoleAdmin)
	old := w.create(t, ctx)
	_, err := w.svc.Roll(ctx, old.Key.ID, 2)
	apierrtest.Want(t, err, apierr.StepUpRequired, "roll_key")
	w.stepUp.granted[apikey.PurposeRoll] = true
	for _, hours := range []int{-1, 169} {
		_, err = w.svc.Roll(ctx, old.Key.ID, hours)
		apierrtest.Want(t, err, apierr.InvalidRequest, "graceHours")
	}
	_, err = w.svc.Roll(ctx, "key_other_test", 2)
	apierrtest.Want(t, err, apierr.APIKeyNotFound, "")

	rolled, err := w.svc.Roll(ctx, old.Key.ID, 2)
	if err != nil {
		t.Fatal(err)
	}
	if rolled.Secret == old.Secret || rolled.Key.ID == old.Key.ID || rolled.Key.Name != "Zapier" ||
		len(rolled.Key.Scopes) != 1 || rolled.Key.Scopes[0] != "conversations:read" {
		t.Errorf("successor %+v", rolled.Key)
	}
	wantOwnerMail(t, w, "API key rolled: Zapier", rolled.Secret)
	w.now = epoch.Add(2*time.Hour - time.Second)
	if a, _, err := w.auth.Authenticate(ctx, old.Secret, nil); err != nil || a.KeyID != rolled.Key.ID {
		t.Errorf("within the grace period the old secret gives %+v, %v", a, err)
	}
	list, _ := w.svc.List(ctx)
	for _, k := range list {
		if k.ID == old.Key.ID && (k.Status != "rolled" || k.RolledTo == nil || *k.RolledTo != rolled.Key.ID) {
			t.Errorf("old key listed as %+v", k)
		}
	}
	w.now = epoch.Add(2 * time.Hour)
	_, _, err = w.auth.Authenticate(ctx, old.Secret, nil)
	apierrtest.Want(t, err, apierr.KeyRolled, "")
	if _, _, err := w.auth.Authenticate(ctx, rolled.Secret, nil); err != nil {
		t.Errorf("the new secret: %v", err)
	}
	// A rolled key cannot be rolled again.
	_, err = w.svc.Roll(ctx, old.Key.ID, 2)
	apierrtest.Want(t, err, apierr.InvalidRequest, "rolled")
}

func TestRevoke(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := member(auth.RoleDeveloper)
	created := w.create(t, ctx)
	n := w.changes.n
	k, err := w.svc.Revoke(ctx, created.Key.ID)
	if err != nil || k.Status != "revoked" || k.RevokedAt == nil {
		t.Fatalf("%+v, %v", k, err)
	}
	if w.changes.n != n+1 {
		t.Errorf("revoking sent %d key change notices, want 1", w.changes.n-n)
	}
	_, _, err = w.auth.Authenticate(ctx, created.Secret, nil)
	apierrtest.Want(t, err, apierr.KeyRevoked, "")
	// Again: answered as it is.
	if k, err := w.svc.Revoke(ctx, created.Key.ID); err != nil || k.Status != "revoked" {
		t.Errorf("second revoke: %+v, %v", k, err)
	}
	// Another workspace's key is not found, and stays as it was.
	_, err = w.svc.Revoke(ctx, "key_other_test")
	apierrtest.Want(t, err, apierr.APIKeyNotFound, "")
	other, _ := w.store.APIKeyRecord(ctx, "ws_other", "key_other_test", false)
	if other == nil || other.Revoked {
		t.Errorf("another workspace's key: %+v", other)
	}
}

func TestRoles(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.stepUp.granted[apikey.PurposeCreate] = true
	refused := []context.Context{
		member(auth.RoleAgent),
		auth.WithActor(context.Background(), &auth.Actor{WorkspaceID: "ws_main", KeyID: "key_test_all", Scopes: []string{"*"}}),
	}
	for _, ctx := range refused {
		if _, err := w.svc.List(ctx); err == nil {
			t.Errorf("%+v listed keys", auth.ActorFrom(ctx))
		}
		_, err := w.svc.Create(ctx, input())
		apierrtest.Want(t, err, apierr.Forbidden, "createAPIKey")
		_, err = w.svc.Revoke(ctx, "key_test_all")
		apierrtest.Want(t, err, apierr.Forbidden, "")
	}
	for _, role := range []string{auth.RoleOwner, auth.RoleAdmin, auth.RoleDeveloper} {
		if _, err := w.svc.List(member(role)); err != nil {
			t.Errorf("%s: %v", role, err)
		}
	}
	// Only this workspace's keys are listed.
	list, _ := w.svc.List(member(auth.RoleOwner))
	for _, k := range list {
		if k.ID == "key_other_test" {
			t.Errorf("another workspace's key listed")
		}
		if k.ID == "key_test_all" && (k.Last4 == "" || k.Name == "") {
			t.Errorf("fixture key without its label: %+v", k)
		}
	}
}

func TestCreateRefusesBadInput(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	w.stepUp.granted[apikey.PurposeCreate] = true
	ctx := member(auth.RoleOwner)
	past := model.NewTimestamp(epoch.Add(-time.Hour))
	for name, change := range map[string]func(*model.CreateAPIKeyInput){
		"name":    func(in *model.CreateAPIKeyInput) { in.Name = " " },
		"mode":    func(in *model.CreateAPIKeyInput) { in.Mode = "prod" },
		"scope":   func(in *model.CreateAPIKeyInput) { in.Scopes = []string{"everything"} },
		"channel": func(in *model.CreateAPIKeyInput) { in.Channels = []string{"sms"} },
		"website": func(in *model.CreateAPIKeyInput) { in.WebsiteIds = []string{"web_other"} },
		"ip":      func(in *model.CreateAPIKeyInput) { in.IPAllowlist = []string{"10.0.0.0/33"} },
		"expiry":  func(in *model.CreateAPIKeyInput) { in.ExpiresAt = &past },
	} {
		in := input()
		change(&in)
		if _, err := w.svc.Create(ctx, in); err == nil {
			t.Errorf("%s: accepted", name)
		} else {
			apierrtest.Want(t, err, apierr.InvalidRequest, "")
		}
	}
}
