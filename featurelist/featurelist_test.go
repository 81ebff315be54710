package featurelist

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/plegvet/plegvet/srcpos"
)

const good = `# comments are allowed
- name: AlphaThing
  versionedSpecs:
  - default: false
    lockToDefault: false
    preRelease: Alpha
    version: "1.30"
  - default: true
    lockToDefault: true
    preRelease: GA
    version: "1.33"
    minCompatibilityVersion: "1.32"
- name: Empty
  versionedSpecs: []
`

func TestParse(t *testing.T) {
	gates, err := Parse("list.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	if len(gates) != 2 || gates[0].Name != "AlphaThing" || gates[0].Entry != (srcpos.Pos{File: "list.yaml", Line: 2}) || gates[1].Name != "Empty" || len(gates[1].Specs) != 0 {
		t.Fatalf("gates %+v", gates)
	}
	s := gates[0].Specs[1]
	if !s.Default || !s.LockToDefault || s.PreRelease != "GA" || s.Version != "1.33" || s.MinCompatibilityVersion != "1.32" || s.Pos != (srcpos.Pos{File: "list.yaml", Line: 8}) {
		t.Errorf("second spec %+v", s)
	}
	if gates, err := Parse("empty.yaml", nil); err != nil || len(gates) != 0 {
		t.Errorf("an empty file: %v, %v", gates, err)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ name, list, want string }{
		{"not yaml", "- name: [\n", `^l.yaml:\d+: not YAML: `},
		{"a mapping", "name: X\n", `^l.yaml:1: want a list of gates`},
		{"a scalar gate", "- X\n", `^l.yaml:1: want a gate: a mapping`},
		{"unknown gate key", "- name: X\n  versionedSpecs: []\n  stage: Beta\n", `^l.yaml:3: unknown key "stage"`},
		{"no name", "- versionedSpecs: []\n", `^l.yaml:1: a gate without a name`},
		{"a number for a name", "- name: 12\n  versionedSpecs: []\n", `^l.yaml:1: want the gate's name, a string`},
		{"no specs", "- name: X\n", `^l.yaml:1: gate X has no versionedSpecs`},
		{"twice", "- name: X\n  versionedSpecs: []\n- name: X\n  versionedSpecs: []\n", `^l.yaml:3: gate X is listed again \(first at line 1\)`},
		{"a string default", "- name: X\n  versionedSpecs:\n  - default: \"no\"\n    lockToDefault: false\n    preRelease: Beta\n    version: \"1.30\"\n", `^l.yaml:3: want default of X to be true or false`},
		{"a stage that is none", "- name: X\n  versionedSpecs:\n  - default: false\n    lockToDefault: false\n    preRelease: Gamma\n    version: \"1.30\"\n", `^l.yaml:5: want preRelease of X to be PreAlpha`},
		{"a version that is none", "- name: X\n  versionedSpecs:\n  - default: false\n    lockToDefault: false\n    preRelease: Beta\n    version: soon\n", `^l.yaml:6: want version of X to be a version`},
		{"a missing field", "- name: X\n  versionedSpecs:\n  - default: false\n    preRelease: Beta\n    version: \"1.30\"\n", `^l.yaml:3: a spec of X has no lockToDefault`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("l.yaml", []byte(tc.list))
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error %v (%T); want an *Error", err, err)
			}
			if !regexp.MustCompile(tc.want).MatchString(err.Error()) {
				t.Errorf("error %q; want %s", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(good))
	f.Add([]byte("- name: X\n  versionedSpecs: []\n"))
	f.Add([]byte("- name: [\n"))
	f.Add([]byte("&a [*a]"))
	f.Add([]byte("- name: X\n  name: Y\n  versionedSpecs: []\n"))
	f.Add([]byte("- &n name: X\n  versionedSpecs: []\n  *n : Y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		gates, err := Parse("f.yaml", data)
		if err != nil {
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), "f.yaml") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		seen := map[string]bool{}
		for _, g := range gates {
			if g.Name == "" || seen[g.Name] {
				t.Fatalf("gate %q accepted (empty or twice)", g.Name)
			}
			seen[g.Name] = true
			for _, s := range g.Specs {
				if s.Version == "" || s.PreRelease == "" {
					t.Fatalf("spec %+v of %s accepted without a version or stage", s, g.Name)
				}
			}
		}
	})
}

// A key given twice in one mapping is a format error naming both lines:
// yaml.v3 decodes into a yaml.Node without checking keys, and the
// parser would take the last value (default: true, then false, read as
// false; a second name renaming the gate).
func TestParseRefusesDuplicateKeys(t *testing.T) {
	const spec = "    lockToDefault: false\n    preRelease: Beta\n    version: \"1.30\"\n"
	for _, tc := range []struct{ name, list, want string }{
		{"default twice in a spec",
			"- name: X\n  versionedSpecs:\n  - default: true\n    default: false\n" + spec,
			`l.yaml:4: duplicate key "default" (first at line 3)`},
		{"name twice in a gate",
			"- name: X\n  name: Y\n  versionedSpecs: []\n",
			`l.yaml:2: duplicate key "name" (first at line 1)`},
		{"version twice in a later spec",
			"- name: X\n  versionedSpecs:\n  - default: false\n" + spec + "  - default: true\n" + spec + "    version: \"1.31\"\n",
			`l.yaml:11: duplicate key "version" (first at line 10)`},
		{"versionedSpecs twice in a later gate",
			"- name: X\n  versionedSpecs: []\n- name: Y\n  versionedSpecs: []\n  versionedSpecs:\n  - default: false\n" + spec,
			`l.yaml:5: duplicate key "versionedSpecs" (first at line 4)`},
		{"a quoted key is the same key",
			"- name: X\n  \"name\": Y\n  versionedSpecs: []\n",
			`l.yaml:2: duplicate key "name" (first at line 1)`},
		{"a tagged key is the same key",
			"- name: X\n  versionedSpecs:\n  - default: true\n    !!str default: false\n" + spec,
			`l.yaml:4: duplicate key "default" (first at line 3)`},
		{"an alias of a key is that key",
			"- &n name: X\n  versionedSpecs: []\n  *n : Y\n",
			`l.yaml:3: duplicate key "name" (first at line 1)`},
		{"a flow mapping",
			"- {name: X, versionedSpecs: [], name: X}\n",
			`l.yaml:1: duplicate key "name" (first at line 1)`},
		{"a duplicate before another error",
			"- name: X\n  name: X\n  stage: Beta\n",
			`l.yaml:2: duplicate key "name" (first at line 1)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gates, err := Parse("l.yaml", []byte(tc.list))
			var le *Error
			if !errors.As(err, &le) {
				t.Fatalf("gates %+v, error %v (%T); want an *Error %s", gates, err, err, tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("error %q; want %q", err, tc.want)
			}
		})
	}
	// Keys repeated in different mappings are no duplicates.
	list := "- name: X\n  versionedSpecs:\n  - default: false\n" + spec + "  - default: true\n" + strings.Replace(spec, "1.30", "1.31", 1) + "- name: Y\n  versionedSpecs: []\n"
	gates, err := Parse("l.yaml", []byte(list))
	if err != nil {
		t.Fatal(err)
	}
	if len(gates) != 2 || len(gates[0].Specs) != 2 || gates[0].Specs[1].Version != "1.31" || !gates[0].Specs[1].Default || gates[1].Name != "Y" {
		t.Errorf("gates %+v", gates)
	}
}

// TestParseRefusesOtherBooleans: YAML 1.1 reads True and TRUE as
// booleans, and the parser read any of them but "true" as false; the
// list is written lower-case, so anything else is a format error.
func TestParseRefusesOtherBooleans(t *testing.T) {
	for _, v := range []string{"True", "TRUE", "False", "yes"} {
		list := "- name: X\n  versionedSpecs:\n  - default: " + v + "\n    lockToDefault: false\n    preRelease: Beta\n    version: \"1.30\"\n"
		gates, err := Parse("l.yaml", []byte(list))
		if want := `l.yaml:3: want default of X to be true or false`; err == nil || err.Error() != want {
			t.Errorf("default: %s: gates %+v, error %v; want %s", v, gates, err, want)
		}
	}
}
