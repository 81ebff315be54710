// Package featurelist reads a feature list in the format of Kubernetes'
// test/compatibility_lifecycle/reference/versioned_feature_list.yaml: the
// committed list a fork's CI compares with its code (plegvet gates
// -check). The list is outside input: anything not in that format is one
// *Error naming the line and what was expected there.
package featurelist

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/plegvet/plegvet/featuregates"
	"github.com/plegvet/plegvet/srcpos"
)

// Error is a feature list that is not in the format of Kubernetes'
// versioned_feature_list.yaml: the file, the line, and what was expected.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Parse reads a feature list in the format of Kubernetes'
// versioned_feature_list.yaml (comments allowed): each gate's Name, Entry
// (its line in the file named name) and Specs, each spec's Pos likewise
// and the fields the list holds (Default, LockToDefault, PreRelease,
// Version, MinCompatibilityVersion). Anything else (another
// shape, an unknown key, a key given twice in one mapping, a value of the
// wrong kind, a gate listed twice) is a *Error naming the line and what
// was expected there.
func Parse(name string, data []byte) ([]featuregates.Gate, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, notYAML(name, err)
	}
	if len(doc.Content) == 0 {
		return []featuregates.Gate{}, nil // an empty file lists no gate
	}
	p := parser{file: name}
	if err := p.uniqueKeys(&doc); err != nil {
		return nil, err
	}
	seq := doc.Content[0]
	if seq.Kind != yaml.SequenceNode {
		return nil, p.fail(seq, "want a list of gates (- name: ..., versionedSpecs: [...])")
	}
	var out []featuregates.Gate
	seen := map[string]int{}
	for _, item := range seq.Content {
		g, specs, err := p.gate(item)
		if err != nil {
			return nil, err
		}
		// A gate listed twice is reported before its specs are read.
		if l, dup := seen[g.Name]; dup {
			return nil, p.fail(item, "gate %s is listed again (first at line %d)", g.Name, l)
		}
		seen[g.Name] = g.Entry.Line
		for _, sn := range specs.Content {
			s, err := p.spec(sn, g.Name)
			if err != nil {
				return nil, err
			}
			g.Specs = append(g.Specs, s)
		}
		out = append(out, g)
	}
	return out, nil
}

// notYAML is the *Error for data the YAML decoder refuses, at the line it
// names when it names one.
func notYAML(name string, err error) *Error {
	line := 0
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ": "); ok {
			if l, err := strconv.Atoi(n); err == nil {
				line, msg = l, after
			}
		}
	}
	return &Error{File: name, Line: line, Msg: "not YAML: " + msg}
}

// parser reads the nodes of one list; its errors name the list's file.
type parser struct{ file string }

// at is n's line in the list, as a gate's Entry and a spec's Pos name it.
func (p parser) at(n *yaml.Node) srcpos.Pos {
	return srcpos.Pos{File: p.file, Line: n.Line}
}

func (p parser) fail(n *yaml.Node, format string, args ...any) error {
	return &Error{File: p.file, Line: n.Line, Msg: fmt.Sprintf(format, args...)}
}

// uniqueKeys refuses a mapping, anywhere under n, that gives a key twice.
// yaml.v3 checks keys only when it decodes into a map or a struct, not
// into a yaml.Node, and the parser reads a mapping's pairs in order, so
// the last value of a key would win unseen (default: true then false read
// as false; a second name renaming the gate). Keys are compared as the
// parser reads them, by their text whatever their style or tag; an alias
// as a key stands for the key it names. Aliases are not followed: the
// node they name is checked where it is written.
func (p parser) uniqueKeys(n *yaml.Node) error {
	first := map[string]*yaml.Node{}
	for i, c := range n.Content { // an alias has none
		// A key that is a list or a mapping is left to the parser, which
		// wants none.
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			key := c
			if c.Kind == yaml.AliasNode && c.Alias != nil {
				key = c.Alias
			}
			if key.Kind == yaml.ScalarNode {
				if f, dup := first[key.Value]; dup {
					return p.fail(c, "duplicate key %q (first at line %d)", key.Value, f.Line)
				}
				first[key.Value] = c
			}
		}
		if err := p.uniqueKeys(c); err != nil {
			return err
		}
	}
	return nil
}

// gate reads a gate's name and finds its versionedSpecs, which the
// caller reads with spec.
func (p parser) gate(item *yaml.Node) (featuregates.Gate, *yaml.Node, error) {
	if item.Kind != yaml.MappingNode {
		return featuregates.Gate{}, nil, p.fail(item, "want a gate: a mapping with name and versionedSpecs")
	}
	g := featuregates.Gate{Entry: p.at(item)}
	var specs *yaml.Node
	for i := 0; i+1 < len(item.Content); i += 2 {
		k, v := item.Content[i], item.Content[i+1]
		switch k.Value {
		case "name":
			if v.Kind != yaml.ScalarNode || v.Tag != "!!str" || v.Value == "" {
				return featuregates.Gate{}, nil, p.fail(v, "want the gate's name, a string")
			}
			g.Name = v.Value
		case "versionedSpecs":
			if v.Kind != yaml.SequenceNode {
				return featuregates.Gate{}, nil, p.fail(v, "want versionedSpecs to be a list of specs")
			}
			specs = v
		default:
			return featuregates.Gate{}, nil, p.fail(k, "unknown key %q; a gate has name and versionedSpecs", k.Value)
		}
	}
	if g.Name == "" {
		return featuregates.Gate{}, nil, p.fail(item, "a gate without a name")
	}
	if specs == nil {
		return featuregates.Gate{}, nil, p.fail(item, "gate %s has no versionedSpecs", g.Name)
	}
	return g, specs, nil
}

// spec reads one spec of the gate named gate; every key but
// minCompatibilityVersion is required.
func (p parser) spec(sn *yaml.Node, gate string) (featuregates.Spec, error) {
	if sn.Kind != yaml.MappingNode {
		return featuregates.Spec{}, p.fail(sn, "want a spec of %s: a mapping with default, lockToDefault, preRelease and version", gate)
	}
	s := featuregates.Spec{Pos: p.at(sn)}
	has := map[string]bool{}
	for i := 0; i+1 < len(sn.Content); i += 2 {
		k, v := sn.Content[i], sn.Content[i+1]
		has[k.Value] = true
		if err := p.specField(&s, k, v, gate); err != nil {
			return featuregates.Spec{}, err
		}
	}
	for _, k := range []string{"default", "lockToDefault", "preRelease", "version"} {
		if !has[k] {
			return featuregates.Spec{}, p.fail(sn, "a spec of %s has no %s", gate, k)
		}
	}
	return s, nil
}

// specField checks the value v of the spec key k and sets it in s.
func (p parser) specField(s *featuregates.Spec, k, v *yaml.Node, gate string) error {
	switch k.Value {
	case "default", "lockToDefault":
		// YAML 1.1's True and TRUE are booleans too, but the list is
		// written lower-case, and a value read otherwise is misread.
		if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || (v.Value != "true" && v.Value != "false") {
			return p.fail(v, "want %s of %s to be true or false", k.Value, gate)
		}
		b := v.Value == "true"
		if k.Value == "default" {
			s.Default = b
		} else {
			s.LockToDefault = b
		}
	case "preRelease":
		if featuregates.PreRelease(v.Value).Stability() < 0 { // not a stage
			return p.fail(v, "want preRelease of %s to be PreAlpha, Alpha, Beta, GA or Deprecated", gate)
		}
		s.PreRelease = featuregates.PreRelease(v.Value)
	case "version", "minCompatibilityVersion":
		if v.Kind != yaml.ScalarNode {
			return p.fail(v, "want %s of %s to be a version such as \"1.36\"", k.Value, gate)
		}
		if _, ok := featuregates.ParseVersion(v.Value); !ok {
			return p.fail(v, "want %s of %s to be a version such as \"1.36\", not %q", k.Value, gate, v.Value)
		}
		if k.Value == "version" {
			s.Version = v.Value
		} else {
			s.MinCompatibilityVersion = v.Value
		}
	default:
		return p.fail(k, "unknown key %q in a spec of %s", k.Value, gate)
	}
	return nil
}
