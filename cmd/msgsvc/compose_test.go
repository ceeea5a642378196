package main

import (
	"os"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// composeFile is the part of compose.yaml this test reads.
type composeFile struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Secrets     []string          `yaml:"secrets"`
		DependsOn   map[string]struct {
			Condition string `yaml:"condition"`
		} `yaml:"depends_on"`
		Volumes []string `yaml:"volumes"`
	} `yaml:"services"`
	Secrets map[string]struct {
		Environment string `yaml:"environment"`
	} `yaml:"secrets"`
	Volumes map[string]any `yaml:"volumes"`
}

// compose.yaml holds together without docker at hand: every msgsvc service
// runs a command the binary has, after `migrate` succeeded; each NAME_FILE
// points at a secret the service mounts and the file defines; each
// variable the msgsvc services set is one the binary reads; dependencies
// and named volumes exist.
func TestComposeFile(t *testing.T) {
	raw, err := os.ReadFile("../../compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c composeFile
	if err := yaml.Unmarshal(raw, &c); err != nil {
		t.Fatalf("compose.yaml: %v", err)
	}
	read := configNames(t, ".")
	commands := map[string]bool{"migrate": true, "serve": true, "worker": true, "run": true}
	msgsvc := 0
	for name, s := range c.Services {
		if s.Image == "" {
			t.Errorf("service %s has no image", name)
		}
		for dep, d := range s.DependsOn {
			if _, ok := c.Services[dep]; !ok {
				t.Errorf("service %s depends on %s, which is not a service", name, dep)
			}
			if !slices.Contains([]string{"service_started", "service_healthy", "service_completed_successfully"}, d.Condition) {
				t.Errorf("service %s: condition %q on %s", name, d.Condition, dep)
			}
		}
		for _, v := range s.Volumes {
			if vol, _, ok := strings.Cut(v, ":"); ok && !strings.HasPrefix(vol, "/") && !strings.HasPrefix(vol, ".") {
				if _, declared := c.Volumes[vol]; !declared {
					t.Errorf("service %s mounts volume %s, which is not declared", name, vol)
				}
			}
		}
		for _, secret := range s.Secrets {
			if _, ok := c.Secrets[secret]; !ok {
				t.Errorf("service %s mounts secret %s, which is not defined", name, secret)
			}
		}
		if !strings.HasPrefix(s.Image, "${MSGSVC_IMAGE") {
			continue
		}
		msgsvc++
		if len(s.Command) != 1 || !commands[s.Command[0]] {
			t.Errorf("msgsvc service %s runs %v, not one of the binary's commands", name, s.Command)
		}
		if name != "migrate" && s.DependsOn["migrate"].Condition != "service_completed_successfully" {
			t.Errorf("msgsvc service %s does not wait for migrate to succeed", name)
		}
		for key, value := range s.Environment {
			base, isFile := strings.CutSuffix(key, "_FILE")
			if !slices.Contains(read, base) {
				t.Errorf("msgsvc service %s sets %s, which the binary does not read", name, key)
			}
			if isFile {
				secret, ok := strings.CutPrefix(value, "/run/secrets/")
				if !ok || !slices.Contains(s.Secrets, secret) {
					t.Errorf("msgsvc service %s: %s=%s is not one of its secrets", name, key, value)
				}
			}
		}
		for _, need := range []string{"DATABASE_URL_FILE", "REDIS_URL", "MSGSVC_SECRET_FILE"} {
			if _, ok := s.Environment[need]; !ok {
				t.Errorf("msgsvc service %s does not set %s", name, need)
			}
		}
	}
	if msgsvc != 3 {
		t.Errorf("%d msgsvc services, want migrate, worker and serve", msgsvc)
	}
}
