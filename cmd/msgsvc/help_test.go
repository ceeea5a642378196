package main

import (
	"bytes"
	"strings"
	"testing"
)

// -h on listen prints its flags, --secret among them, and succeeds; a
// missing flag is still an error.
func TestListenHelp(t *testing.T) {
	var out bytes.Buffer
	noEnv := func(string) string { return "" }
	if err := listenCmd([]string{"-h"}, noEnv, &out); err != nil {
		t.Fatalf("listen -h: %v", err)
	}
	for _, flag := range []string{"-api", "-key", "-forward", "-events", "-secret"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("listen -h does not list %s:\n%s", flag, out.String())
		}
	}
	if err := listenCmd(nil, noEnv, &out); err == nil || !strings.Contains(err.Error(), "--forward") {
		t.Errorf("listen without flags: %v", err)
	}
}

// msgsvc --help (and -h, help) succeeds without any configuration.
func TestHelp(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	for _, arg := range []string{"-h", "--help", "help"} {
		if err := run([]string{arg}); err != nil {
			t.Errorf("msgsvc %s: %v", arg, err)
		}
	}
	if err := run([]string{"nope"}); err == nil {
		t.Error("an unknown command succeeded")
	}
}
