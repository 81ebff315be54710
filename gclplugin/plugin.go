package gclplugin

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/golangci/plugin-module-register/register"
	"golang.org/x/tools/go/analysis"

	"github.com/plegvet/plegvet/internal/analysis/suite"
)

// Name is the plugin's name: the key under linters.settings.custom and
// in linters.enable of a .golangci.yml.
const Name = "plegvet"

func init() {
	register.Plugin(Name, New)
}

// Settings is what linters.settings.custom.plegvet.settings holds: a
// section per analyzer of the suite, whose keys are the fields of that
// analyzer's Config (featuregate.rules, pleg.note), and the analyzers to
// leave out. Every key is optional; an unknown key, or a value of the
// wrong type, is an error, so that a misspelt setting cannot silently
// leave a check as it was.
type Settings struct {
	suite.Config
	// Disable names analyzers ("featuregate", "pleg") that do not run. pleg
	// still reads the gates' specs through gatefacts, which it requires.
	Disable []string `json:"disable"`
}

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

// DecodeSettings decodes and checks the plugin's settings strictly, over
// the suite's defaults: an unknown key, a value of the wrong type, an
// unknown analyzer or a setting its analyzer refuses is an error.
func DecodeSettings(raw any) (Settings, error) {
	s := Settings{Config: suite.DefaultConfig()}
	if raw == nil {
		return s, nil
	}
	// register.DecodeSettings, onto a value that holds the defaults: a
	// key left out keeps its default, and an empty list is empty.
	data, err := json.Marshal(raw)
	if err != nil {
		return Settings{}, fmt.Errorf("plegvet settings: encoding settings: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
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
		key := cmp.Or(jsonPath(te.Field), "settings")
		value, _, _ := strings.Cut(te.Value, " ") // "number 1.3"
		want := kindOf(te.Type.String())
		msg := fmt.Sprintf("%s: got %s, want %s", key, article(value), want)
		if value == "number" && want == "a string" {
			msg += " (quote it: YAML reads an unquoted 1.30 as the number 1.3)"
		}
		return errors.New(msg)
	}
	if _, rest, ok := strings.Cut(err.Error(), "json: unknown field "); ok {
		if name, err := strconv.Unquote(rest); err == nil {
			rest = strconv.Quote(keyPath(raw, name))
		}
		return fmt.Errorf("unknown key %s (known: %s)", rest, strings.Join(knownKeys(), ", "))
	}
	return err
}

// jsonPath drops from the decoder's path of a field the Go names of the
// structs Settings embeds, which the JSON does not write.
func jsonPath(field string) string {
	t := reflect.TypeFor[Settings]()
	var keep []string
	for _, name := range strings.Split(field, ".") {
		if f, ok := t.FieldByName(name); !ok || !f.Anonymous {
			keep = append(keep, name)
		}
	}
	return strings.Join(keep, ".")
}

// knownKeys are the settings' keys, as a user writes them.
func knownKeys() []string {
	var keys []string
	for _, st := range suite.Settings() {
		keys = append(keys, st.Analyzer+"."+st.Key)
	}
	return append(keys, "disable")
}

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
	if jsonKind == "array" || jsonKind == "object" {
		return "an " + jsonKind
	}
	return "a " + jsonKind
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
	if err := s.Config.Validate(); err != nil {
		return err
	}
	var known, enabled []string
	for _, a := range suite.Analyzers() {
		known = append(known, a.Name)
		if !slices.Contains(s.Disable, a.Name) {
			enabled = append(enabled, a.Name)
		}
	}
	for _, d := range s.Disable {
		if !slices.Contains(known, d) {
			return fmt.Errorf("disable: unknown analyzer %q (known: %s)", d, strings.Join(known, ", "))
		}
	}
	if len(enabled) == 0 {
		return errors.New("disable: every analyzer is disabled; drop plegvet from linters.enable instead")
	}
	return nil
}

// BuildAnalyzers returns the analyzers that are not disabled, each
// configured by the settings and with flags of its own: no other plugin
// instance, nor go vet's analyzers in the same process, share them.
func (p *Plugin) BuildAnalyzers() ([]*analysis.Analyzer, error) {
	var as []*analysis.Analyzer
	for _, a := range suite.Analyzers() {
		if !slices.Contains(p.settings.Disable, a.Name) {
			as = append(as, a.New(p.settings.Config))
		}
	}
	return as, nil
}

// Settings returns the plugin's decoded settings.
func (p *Plugin) Settings() Settings { return p.settings }

// GetLoadMode asks golangci-lint for type information: the analyzers read
// types (and gatefacts' facts), and need nothing heavier.
func (p *Plugin) GetLoadMode() string { return register.LoadModeTypesInfo }
