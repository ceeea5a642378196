package main

import (
	"strings"
	"testing"
)

// REDIS_URL takes the Sentinel form; a malformed one stops the binary with
// a message naming the variable and not the password.
func TestRedisURL(t *testing.T) {
	env := func(url string) func(string) string {
		return func(k string) string {
			if k == "REDIS_URL" {
				return url
			}
			return ""
		}
	}
	cfg, err := loadConfig(env("redis-sentinel://:pw@10.0.0.1:26379,10.0.0.2:26379?master=main"))
	if err != nil || !cfg.Redis.Sentinel() {
		t.Fatalf("the Sentinel form: %v", err)
	}
	_, err = loadConfig(env("redis-sentinel://:hunter2@10.0.0.1:26379"))
	if err == nil || !strings.HasPrefix(err.Error(), "REDIS_URL: ") || !strings.Contains(err.Error(), "master") || strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("no master: %v", err)
	}
}
