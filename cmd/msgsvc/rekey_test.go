package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/channels/email/emailtest"
	"github.com/msgsvc/msgsvc/graph/auth"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/mail"
	"github.com/msgsvc/msgsvc/graph/model"
	"github.com/msgsvc/msgsvc/graph/seed"
	"github.com/msgsvc/msgsvc/graph/visitor"
	"github.com/msgsvc/msgsvc/repo"
	"github.com/msgsvc/msgsvc/repo/repotest"
	"github.com/msgsvc/msgsvc/rest/resttest"
)

func key32(c byte) string { return base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{c}, 32)) }

// sealEverything stores one value of every sealed column under cfg's
// first key and secret: provider credentials, a DKIM key, a widget
// identity secret, and a webhook endpoint's current and previous signing
// secrets.
func sealEverything(t *testing.T, store *repo.Store, cfg *Config) {
	t.Helper()
	ctx := t.Context()
	row, err := credentials.Vault{Key: cfg.Seal}.Seal("ws_main", "wa_main", "whatsapp",
		channels.Credentials{AccessToken: "EAAG-rekey", PhoneNumberID: "1065403522400", WABAID: "1022901293400"}, time.Now())
	if err == nil {
		err = store.UpsertAccountProvider(ctx, row)
	}
	keyPEM, _ := emailtest.RSAKey(t)
	dk, err2 := mail.SealDKIM(cfg.Seal, "ws_main", "verified.test", "s1", keyPEM)
	if err = errors.Join(err, err2); err == nil {
		err = store.InTx(ctx, func(q repo.Queries) error { return q.SetDomainKey(ctx, "ws_main", "verified.test", dk) })
	}
	sealed, err3 := cfg.Seal.Seal([]byte("identity-secret"), visitor.SealAAD("web_main"))
	if err = errors.Join(err, err3); err == nil {
		err = store.UpsertWebsiteWidget(ctx, &repo.WebsiteWidget{WebsiteID: "web_main", WorkspaceID: "ws_main", IdentitySecretSealed: &sealed})
	}
	if err != nil {
		t.Fatal(err)
	}
	webhooks := webhooksOf(store, cfg)
	actx := auth.WithActor(ctx, &auth.Actor{WorkspaceID: "ws_main", Scopes: []string{"*"}})
	// The handshake fails (the address is refused); the endpoint is kept.
	e, err := webhooks.CreateEndpoint(actx, model.CreateWebhookEndpointInput{URL: "https://127.0.0.1:1/hook", Events: []string{"*"}})
	if err != nil {
		t.Fatal(err)
	}
	grace := 24
	if _, err := webhooks.RollSecret(actx, e.ID, model.RollWebhookSecretInput{GraceHours: &grace}); err != nil {
		t.Fatal(err)
	}
}

// TestRekeyReSealsEverythingWithTheFirstKey: after a rotation (new key and
// secret first, the old ones after) values sealed with the old ones still
// open, new values are sealed with the new ones, and `msgsvc rekey` leaves
// nothing that needs the old ones.
func TestRekeyReSealsEverythingWithTheFirstKey(t *testing.T) {
	store, dsn := repotest.NewStoreURL(t)
	load := func(secret, key string) *Config {
		t.Helper()
		c, err := loadConfig(env(map[string]string{"MSGSVC_SECRET": secret, "MSGSVC_ENCRYPTION_KEY": key}))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	const oldSecret, newSecret = "the-old-secret-0123456789", "the-new-secret-0123456789"
	oldCfg, newOnly := load(oldSecret, key32('o')), load(newSecret, key32('n'))
	rotated := load(newSecret+","+oldSecret, key32('n')+","+key32('o'))
	raw, err := os.ReadFile(resttest.FixturePath())
	if err != nil {
		t.Fatal(err)
	}
	fixture, err := seed.ParseFixture(bytes.NewReader(raw))
	if err == nil {
		err = (&seed.Seeder{Store: store, Seal: oldCfg.Seal}).Seed(t.Context(), fixture)
	}
	if err != nil {
		t.Fatal(err)
	}
	sealEverything(t, store, oldCfg)

	// Only the new key and secret: none of the five values opens.
	if changed, skipped, err := reseal(t.Context(), store, newOnly.Seal, webhooksOf(store, newOnly)); err != nil || len(changed) != 0 || len(skipped) != 5 {
		t.Fatalf("with the new key only: changed %v, skipped %v, %v; want the 5 values unopened", changed, skipped, err)
	}
	// The rotated lists open the old values...
	p, err := store.AccountProvider(t.Context(), "ws_main", "wa_main")
	if err != nil {
		t.Fatal(err)
	}
	if c, err := (credentials.Vault{Key: rotated.Seal}).Open(p); err != nil || c.AccessToken != "EAAG-rekey" {
		t.Fatalf("old credentials through the rotated key: %+v, %v", c, err)
	}
	// ... and seal new ones with the first key.
	fresh, err := rotated.Seal.Seal([]byte("new"), "row")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newOnly.Seal.Open(fresh, "row"); err != nil {
		t.Fatalf("a new value is not sealed with the first key: %v", err)
	}

	for k, v := range map[string]string{"DATABASE_URL": dsn, "MSGSVC_SECRET": newSecret + "," + oldSecret,
		"MSGSVC_ENCRYPTION_KEY": key32('n') + "," + key32('o')} {
		t.Setenv(k, v)
	}
	var out bytes.Buffer
	cfg, err := loadConfig(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	if err := rekey(context.Background(), cfg, &out); err != nil {
		t.Fatalf("rekey: %v", err)
	}
	if !strings.HasPrefix(out.String(), "re-sealed 5 values") || !strings.Contains(out.String(), "webhook_endpoints.previous_secret: 1") {
		t.Errorf("rekey said %q", out.String())
	}
	// Now the new key and secret alone open everything, and nothing is left
	// to re-seal.
	if changed, skipped, err := reseal(t.Context(), store, newOnly.Seal, webhooksOf(store, newOnly)); err != nil || len(changed) != 0 || len(skipped) != 0 {
		t.Fatalf("after rekey, with the new key only: changed %v, skipped %v, %v", changed, skipped, err)
	}
	if _, err := (credentials.Vault{Key: newOnly.Seal}).Open(p); err == nil {
		t.Fatal("the row read before rekey opens with the new key alone")
	}
	// A second run changes nothing.
	if err := run([]string{"rekey"}); err != nil {
		t.Fatalf("second rekey: %v", err)
	}
}

func TestRekeyRefusesAGeneratedSecret(t *testing.T) {
	cfg, err := loadConfig(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if err := rekey(t.Context(), cfg, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "MSGSVC_SECRET") {
		t.Fatalf("rekey without MSGSVC_SECRET: %v", err)
	}
}
