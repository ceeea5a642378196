package main

import (
	"strings"
	"testing"
	"time"
)

func TestSweepConfig(t *testing.T) {
	c, err := loadConfig(env(nil))
	if err != nil {
		t.Fatal(err)
	}
	if c.Sweep.Grace != 30*time.Second || c.Sweep.Every != 2*time.Second {
		t.Errorf("defaults %+v", c.Sweep)
	}
	c, err = loadConfig(env(map[string]string{"MSGSVC_SWEEP_GRACE": "0s", "MSGSVC_SWEEP_EVERY": "500ms"}))
	if err != nil || c.Sweep.Grace != 0 || c.Sweep.Every != 500*time.Millisecond {
		t.Errorf("set: %+v, %v", c, err)
	}
	for name, value := range map[string]string{
		"MSGSVC_SWEEP_GRACE": "soon", "MSGSVC_SWEEP_EVERY": "0s",
	} {
		if _, err := loadConfig(env(map[string]string{name: value})); err == nil || !strings.HasPrefix(err.Error(), name+":") {
			t.Errorf("%s=%s: error %v, want one naming the variable", name, value, err)
		}
	}
	for _, v := range []string{"-1s", "25h"} {
		if _, err := loadConfig(env(map[string]string{"MSGSVC_SWEEP_GRACE": v})); err == nil {
			t.Errorf("MSGSVC_SWEEP_GRACE=%s accepted", v)
		}
	}
}
