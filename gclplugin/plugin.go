package gclplugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/analyzer/featuregate"
	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/featuregates"
)

// Name is the plugin's name: the key under linters.settings.custom and
// in linters.enable of a .golangci.yml.
const Name = "plegvet"

func init() {
	register.Plugin(Name, New)
}

// Settings is what linters.settings.custom.plegvet.settings holds. Every
// key is optional; an unknown key, or a value of the wrong type, is an
// error, so that a misspelt setting cannot silently leave a check as it
// was.
type Settings struct {
	// Featuregate configures the featuregate analyzer.
	Featuregate FeaturegateSettings `json:"featuregate"`
	// Pleg configures the pleg analyzer.
	Pleg PlegSettings `json:"pleg"`
	// Disable names analyzers ("featuregate", "pleg") whose findings are
	// not reported. pleg still runs featuregate for its facts.
	Disable []string `json:"disable"`
}

// FeaturegateSettings maps onto the featuregate analyzer's flags.
type FeaturegateSettings struct {
	// Rules is the flag -featuregate.rules: "auto" (the default: the
	// newest version the package's specs name) or a Kubernetes minor
	// such as "1.33", whose component-base rules then apply. It must be
	// a string; YAML reads an unquoted 1.30 as the number 1.3.
	Rules string `json:"rules"`
	// AlphaDefaultExempt is the flag -featuregate.alpha-default-exempt:
	// gates exempt from alpha-default-on. Omitted, the flag's default
	// (WindowsHostNetwork, as upstream) applies; a list replaces it, and
	// an empty list exempts no gate.
	AlphaDefaultExempt *[]string `json:"alphaDefaultExempt"`
}

// PlegSettings maps onto the pleg analyzer's flags.
type PlegSettings struct {
	// Note is the flag -pleg.note: report the informational gate-note.
	Note bool `json:"note"`
}

// analyzers are the plugin's analyzers, in the order they are returned.
var analyzers = []*analysis.Analyzer{featuregate.Analyzer, pleg.Analyzer}

// Plugin is plegvet as a golangci-lint module plugin.
type Plugin struct {
	settings Settings
}

var _ register.LinterPlugin = (*Plugin)(nil)

// New is the plugin's constructor, called by golangci-lint with the
// decoded YAML of linters.settings.custom.plegvet.settings (nil when
// there is none).
func New(settings any) (register.LinterPlugin, error) {
	s, err := DecodeSettings(settings)
	if err != nil {
		return nil, err
	}
	return &Plugin{settings: s}, nil
}

// DecodeSettings decodes and checks the plugin's settings strictly: an
// unknown key, a value of the wrong type, an unknown analyzer or a rules
// value that is not a Kubernetes minor is an error.
func DecodeSettings(raw any) (Settings, error) {
	if raw == nil {
		return Settings{}, nil
	}
	s, err := register.DecodeSettings[Settings](raw)
	if err != nil {
		return Settings{}, fmt.Errorf("plegvet settings: %w", clarify(err, raw))
	}
	if err := s.validate(); err != nil {
		return Settings{}, fmt.Errorf("plegvet settings: %w", err)
	}
	return s, nil
}

// clarify rewords the decoder's errors after the keys a user writes.
func clarify(err error, raw any) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		key := te.Field
		if key == "" {
			key = "settings"
		}
		value, _, _ := strings.Cut(te.Value, " ") // "number 1.3"
		msg := fmt.Sprintf("%s: got %s, want %s", key, article(value), kindOf(te.Type.String()))
		if key == "featuregate.rules" && value == "number" {
			msg += ` (quote the version: rules: "1.33")`
		}
		return errors.New(msg)
	}
	if _, rest, ok := strings.Cut(err.Error(), "json: unknown field "); ok {
		if name, err := strconv.Unquote(rest); err == nil {
			rest = strconv.Quote(keyPath(raw, name))
		}
		return fmt.Errorf("unknown key %s (known: %s)", rest, strings.Join(knownKeys, ", "))
	}
	return err
}

// knownKeys are the settings' keys, as a user writes them.
var knownKeys = []string{"featuregate.rules", "featuregate.alphaDefaultExempt", "pleg.note", "disable"}

// keyPath returns the dotted path of the key name in the settings (the
// decoder names only the key).
func keyPath(raw any, name string) string {
	m, _ := raw.(map[string]any)
	if _, ok := m[name]; ok {
		return name
	}
	for section, v := range m {
		if sub, ok := v.(map[string]any); ok {
			if _, ok := sub[name]; ok {
				return section + "." + name
			}
		}
	}
	return name
}

func article(jsonKind string) string {
	switch jsonKind {
	case "array", "object":
		return "an " + jsonKind
	default:
		return "a " + jsonKind
	}
}

func kindOf(goType string) string {
	switch goType {
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "[]string":
		return "a list of strings"
	default:
		return "a map"
	}
}

func (s Settings) validate() error {
	if r := s.Featuregate.Rules; r != "" && r != "auto" {
		if _, ok := featuregates.ParseVersion(r); !ok {
			return fmt.Errorf(`featuregate.rules: %q is neither "auto" nor a Kubernetes minor such as "1.33"`, r)
		}
	}
	if s.Featuregate.AlphaDefaultExempt != nil {
		for _, g := range *s.Featuregate.AlphaDefaultExempt {
			if g == "" || strings.ContainsAny(g, ", \t") {
				return fmt.Errorf("featuregate.alphaDefaultExempt: %q is not a gate name", g)
			}
		}
	}
	known := make([]string, len(analyzers))
	for i, a := range analyzers {
		known[i] = a.Name
	}
	for _, d := range s.Disable {
		if !slices.Contains(known, d) {
			return fmt.Errorf("disable: unknown analyzer %q (known: %s)", d, strings.Join(known, ", "))
		}
	}
	if len(enabled(s.Disable)) == 0 {
		return errors.New("disable: every analyzer is disabled; drop plegvet from linters.enable instead")
	}
	return nil
}

// enabled returns the analyzers not disabled.
func enabled(disable []string) []*analysis.Analyzer {
	var as []*analysis.Analyzer
	for _, a := range analyzers {
		if !slices.Contains(disable, a.Name) {
			as = append(as, a)
		}
	}
	return as
}

// Settings returns the plugin's decoded settings.
func (p *Plugin) Settings() Settings { return p.settings }

// BuildAnalyzers sets the analyzers' flags from the settings and returns
// the analyzers that are not disabled. The flags are the analyzers'
// package-level configuration (as under go vet), so every flag is set,
// to its default when the settings omit it, and the settings of one
// plugin instance never leak into the next.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	fg := p.settings.Featuregate
	rules := fg.Rules
	if rules == "" {
		rules = defValue(featuregate.Analyzer, "rules")
	}
	exempt := defValue(featuregate.Analyzer, "alpha-default-exempt")
	if fg.AlphaDefaultExempt != nil {
		exempt = strings.Join(*fg.AlphaDefaultExempt, ",")
	}
	for _, f := range []struct {
		a           *analysis.Analyzer
		name, value string
	}{
		{featuregate.Analyzer, "rules", rules},
		{featuregate.Analyzer, "alpha-default-exempt", exempt},
		{pleg.Analyzer, "note", strconv.FormatBool(p.settings.Pleg.Note)},
	} {
		if err := f.a.Flags.Set(f.name, f.value); err != nil {
			return nil, fmt.Errorf("plegvet: setting -%s.%s=%s: %w", f.a.Name, f.name, f.value, err)
		}
	}
	return enabled(p.settings.Disable), nil
}

func defValue(a *analysis.Analyzer, name string) string {
	if f := a.Flags.Lookup(name); f != nil {
		return f.DefValue
	}
	return ""
}

// GetLoadMode asks golangci-lint for type information: both analyzers
// read types (and featuregate's facts), and need nothing heavier.
func (p *Plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
