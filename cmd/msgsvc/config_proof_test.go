package main

import (
	"strings"
	"testing"
)

// MSGSVC_META_APPSECRET_PROOF is off by default, takes true or false, and
// needs the app secret it proves calls with.
func TestAppSecretProofConfig(t *testing.T) {
	base := map[string]string{"MSGSVC_SECRET": "a-development-secret"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	cfg, err := loadConfig(env(base))
	if err != nil || cfg.Live.MetaAppSecretProof {
		t.Fatalf("default: %v, %v", cfg.Live.MetaAppSecretProof, err)
	}
	cfg, err = loadConfig(env(with("MSGSVC_META_APPSECRET_PROOF", "true", "MSGSVC_META_APP_SECRET", "s3cret")))
	if err != nil || !cfg.Live.MetaAppSecretProof {
		t.Fatalf("on: %v, %v", cfg.Live.MetaAppSecretProof, err)
	}
	for _, kv := range [][]string{{"MSGSVC_META_APPSECRET_PROOF", "yes please"}, {"MSGSVC_META_APPSECRET_PROOF", "true"}} {
		if _, err := loadConfig(env(with(kv...))); err == nil || !strings.HasPrefix(err.Error(), "MSGSVC_META_APPSECRET_PROOF:") {
			t.Errorf("%v: err = %v", kv, err)
		}
	}
}
