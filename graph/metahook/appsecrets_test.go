package metahook

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/msgsvc/msgsvc/channels"
	"github.com/msgsvc/msgsvc/graph/credentials"
	"github.com/msgsvc/msgsvc/graph/seal"
	"github.com/msgsvc/msgsvc/repo"
)

// keyedStore answers AccountProvidersByKey from rows by key and counts the
// lookups; nothing else is called.
type keyedStore struct {
	Store
	rows    map[string][]repo.AccountProvider
	lookups int
}

func (f *keyedStore) AccountProvidersByKey(_ context.Context, _, key string) ([]repo.AccountProvider, error) {
	f.lookups++
	return f.rows[key], nil
}

// An account's own app secret verifies payloads about that account only:
// a payload that also names an account of another app (another workspace)
// gets no secret to try, so a tenant who knows its own app's secret cannot
// sign events into someone else's account.
func TestAppSecretsVouchOnlyForTheirOwnAccounts(t *testing.T) {
	vault := testVault(t)
	row := func(ws, acc, igID, appSecret string) repo.AccountProvider {
		t.Helper()
		p, err := vault.Seal(ws, acc, "instagram", channels.Credentials{AccessToken: "tok", IGUserID: igID, AppSecret: appSecret}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return *p
	}
	store := &keyedStore{rows: map[string][]repo.AccountProvider{
		"111": {row("ws_a", "acc_a", "111", "secret-of-app-a")},
		"112": {row("ws_a", "acc_a2", "112", "secret-of-app-a")},
		"222": {row("ws_b", "acc_b", "222", "secret-of-app-b")},
		"333": {row("ws_c", "acc_c", "333", "")},
	}}
	s := &Service{Store: store, Vault: vault}
	for _, c := range []struct {
		name, payload string
		want          []string
	}{
		{"one account", `{"object":"instagram","entry":[{"id":"111"},{"id":"111"}]}`, []string{"secret-of-app-a"}},
		{"two accounts of one app", `{"object":"instagram","entry":[{"id":"111"},{"id":"112"}]}`, []string{"secret-of-app-a"}},
		{"another app's account besides", `{"object":"instagram","entry":[{"id":"111"},{"id":"222"}]}`, nil},
		{"an account on the global secret besides", `{"object":"instagram","entry":[{"id":"111"},{"id":"333"}]}`, nil},
		{"an unknown id besides", `{"object":"instagram","entry":[{"id":"111"},{"id":"999"}]}`, nil},
		{"an entry without id besides", `{"object":"instagram","entry":[{"id":"111"},{}]}`, nil},
		{"not instagram", `{"object":"whatsapp_business_account","entry":[{"id":"111"}]}`, nil},
		{"too many accounts", `{"object":"instagram","entry":[{"id":"111"},{"id":"1"},{"id":"2"},{"id":"3"},{"id":"4"},
			{"id":"5"},{"id":"6"},{"id":"7"},{"id":"8"},{"id":"9"},{"id":"10"}]}`, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := s.AppSecrets(t.Context(), []byte(c.payload))
			if err != nil || !slices.Equal(got, c.want) {
				t.Errorf("AppSecrets = %q, %v; want %q", got, err, c.want)
			}
		})
	}
	if store.lookups > 20 {
		t.Errorf("%d account lookups for these payloads; at most one per distinct id, stopping at the first that shares no secret", store.lookups)
	}
}

// testVault seals and opens credentials with a key of a fixed secret.
func testVault(t *testing.T) credentials.Vault {
	t.Helper()
	key, err := seal.New("", "a-test-secret-of-32-characters!!")
	if err != nil {
		t.Fatal(err)
	}
	return credentials.Vault{Key: key}
}
