package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// The alerts `plegvet alerts` writes that the scenario times, by name:
// the one place their names are written.
const (
	// AlertStalled fires when the relist has stalled for a fraction of
	// the threshold: before the kubelet's own "PLEG is not healthy".
	AlertStalled = "PLEGRelistStalled"
	// AlertUnhealthy fires at the threshold, with the kubelet.
	AlertUnhealthy = "PLEGUnhealthy"
)

// Alerts are the alerts the scenario times, in the order they fire.
var Alerts = []string{AlertStalled, AlertUnhealthy}

// Rule is an alerting rule of a rules file.
type Rule struct {
	Alert string `yaml:"alert"`
	Expr  string `yaml:"expr"`
	For   string `yaml:"for"`
}

// ReadRules reads a rules file's alerting rules, and fails when one of
// Alerts is not among them: a renamed alert would otherwise be waited
// for in vain.
func ReadRules(file string) ([]Rule, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var doc struct {
		Groups []struct {
			Rules []Rule `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var rules []Rule
	names := map[string]bool{}
	for _, g := range doc.Groups {
		for _, r := range g.Rules {
			if r.Alert != "" {
				rules = append(rules, r)
				names[r.Alert] = true
			}
		}
	}
	for _, a := range Alerts {
		if !names[a] {
			var have []string
			for _, r := range rules {
				have = append(have, r.Alert)
			}
			return nil, fmt.Errorf("%s has no alert %s (it has %s): harness.Alerts must name the alerts plegvet alerts writes", file, a, strings.Join(have, ", "))
		}
	}
	return rules, nil
}

// AlertRules writes the rules `plegvet alerts -k8s release -o rules`
// gives into dir, with a plegvet built from the repository at root, and
// returns the file. A plegvet without an alerts subcommand (its help
// lists none) gives "" and no error; a plegvet with one that fails, or
// whose rules lack one of Alerts, is an error. PLEGVET_KUBELETCHECK_RULES
// names a rules file to use instead.
func AlertRules(ctx context.Context, root, release, dir string) (string, error) {
	if f := os.Getenv("PLEGVET_KUBELETCHECK_RULES"); f != "" {
		abs, err := filepath.Abs(f) // Prometheus reads it from its own directory
		if err != nil {
			return "", err
		}
		_, err = ReadRules(abs)
		return abs, err
	}
	bin := filepath.Join(dir, "plegvet")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/plegvet")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building plegvet: %v\n%s", err, out)
	}
	help, err := exec.CommandContext(ctx, bin, "help").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("plegvet help: %v\n%s", err, help)
	}
	if !strings.Contains(string(help), "plegvet alerts") {
		return "", nil
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "alerts", "-k8s", release, "-o", "rules")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("plegvet alerts -k8s %s -o rules: %v\n%s", release, err, stderr.String())
	}
	file := filepath.Join(dir, "rules.yml")
	if err := os.WriteFile(file, stdout.Bytes(), 0o644); err != nil {
		return "", err
	}
	_, err = ReadRules(file)
	return file, err
}
