// The analyzer's configuration, its validation and the flags that set it.

package featuregate

import (
	"fmt"
	"strings"

	"github.com/plegvet/plegvet/featuregates"
)

// Config is the featuregate analyzer's configuration. Its fields are the
// analyzer's flags (-featuregate.rules) and, by their JSON names, the
// golangci-lint plugin's settings (featuregate.rules).
type Config struct {
	// Rules is "auto" (or ""): component-base's rules as of the newest
	// version the package's specs name; or a Kubernetes minor such as
	// "1.33", whose rules then apply.
	Rules string `json:"rules"`
	// AlphaDefaultExempt are gates exempt from alpha-default-on.
	AlphaDefaultExempt []string `json:"alphaDefaultExempt"`
}

// DefaultConfig is upstream's: rules of the tree's own release, and
// WindowsHostNetwork exempt, as pkg/features' own test exempts it.
func DefaultConfig() Config {
	return Config{Rules: "auto", AlphaDefaultExempt: []string{"WindowsHostNetwork"}}
}

// Validate names the first setting that is wrong, by its JSON name.
func (c Config) Validate() error {
	if err := checkRules(c.Rules); err != nil {
		return fmt.Errorf("rules: %w", err)
	}
	for _, g := range c.AlphaDefaultExempt {
		if err := checkGateName(g); err != nil {
			return fmt.Errorf("alphaDefaultExempt: %w", err)
		}
	}
	return nil
}

func checkRules(r string) error {
	if r == "" || r == "auto" {
		return nil
	}
	if _, ok := featuregates.ParseVersion(r); !ok {
		return fmt.Errorf(`%q is neither "auto" nor a Kubernetes minor such as "1.33"`, r)
	}
	return nil
}

func checkGateName(g string) error {
	if g == "" || strings.ContainsAny(g, ", \t") {
		return fmt.Errorf("%q is not a gate name", g)
	}
	return nil
}

// rulesFlag is -rules, bound to one analyzer's Config.
type rulesFlag struct{ c *Config }

func (f rulesFlag) String() string {
	if f.c == nil {
		return ""
	}
	return f.c.Rules
}

func (f rulesFlag) Set(s string) error {
	if err := checkRules(s); err != nil {
		return err
	}
	f.c.Rules = s
	return nil
}

// exemptFlag is -alpha-default-exempt, a comma-separated list bound to
// one analyzer's Config.
type exemptFlag struct{ c *Config }

func (f exemptFlag) String() string {
	if f.c == nil {
		return ""
	}
	return strings.Join(f.c.AlphaDefaultExempt, ",")
}

func (f exemptFlag) Set(s string) error {
	names := []string{}
	for _, n := range strings.Split(s, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		if err := checkGateName(n); err != nil {
			return err
		}
		names = append(names, n)
	}
	f.c.AlphaDefaultExempt = names
	return nil
}
