package nodeverdict

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// crictlWant is what a crictl file should be, for error messages.
const crictlWant = "the output of crictl version (lines Version, RuntimeName, RuntimeVersion, RuntimeApiVersion), or the same as a JSON or YAML object (keys version, runtimeName, runtimeVersion, runtimeApiVersion)"

// KnownRuntimes returns the runtimeName values plegvet recognises:
// containerd, CRI-O, and cri-dockerd, which reports "docker". The slice is
// new on each call.
func KnownRuntimes() []string { return []string{"containerd", "cri-o", "docker"} }

// Where a Runtime was read (Runtime.ReportedBy).
const (
	ReportedByCrictl   = "crictl-version"
	ReportedByNodeInfo = "node-info"
)

// Runtime is the container runtime, as crictl version (or the Node
// object) reports it.
type Runtime struct {
	// ReportedBy says where the runtime was read: "crictl-version" (crictl on
	// the node) or "node-info" (the Node object's status.nodeInfo, no CRI
	// version: APIVersion is then inferred from the kubelet's version).
	ReportedBy string `json:"reportedBy"`
	Name       string `json:"name"`
	Version    string `json:"version"`
	APIVersion string `json:"apiVersion"`
	// KubeletAPIVersion is crictl's "version": the version of the
	// kubelet runtime API the runtime answers with (0.1.0 in practice).
	KubeletAPIVersion string `json:"kubeletApiVersion"`
	// Known says whether Name is one of KnownRuntimes.
	Known bool `json:"known"`
	// StreamsEvents is whether the runtime's own source, at this version,
	// serves CRI GetContainerEvents as a stream; null when not judged.
	// Module is the module read (module@version) and Pos the method that
	// decides (file:line within it); StreamsWhy says why, or why not known.
	StreamsEvents *bool  `json:"streamsEvents"`
	Module        string `json:"module"`
	Pos           string `json:"pos"`
	StreamsWhy    string `json:"streamsWhy"`
}

// The fields of CRI's VersionResponse, as crictl version prints them
// (cri-tools' cmd/crictl/version.go: one "Name:  value" line each) and
// as their JSON names spell them; matched without regard to case.
var crictlKeys = []string{"version", "runtimeName", "runtimeVersion", "runtimeApiVersion"}

// ReadCrictl reads what crictl version prints on the node: a line for
// each field of CRI's VersionResponse,
//
//	Version:  0.1.0
//	RuntimeName:  containerd
//	RuntimeVersion:  1.6.20~ds1
//	RuntimeApiVersion:  v1
//
// (crictl version has no -o flag), or the same fields as one JSON object
// or flat YAML mapping, as other tools print them. Name is the file's
// name, for errors. A runtimeName outside KnownRuntimes is not an error
// (Runtime.Known is false); a missing or empty one is.
func ReadCrictl(name string, data []byte) (*Runtime, error) {
	parse := crictlLines
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] == '{' || t[0] == '[' {
		parse = crictlJSON // decodeJSONObject says what an empty file or a list is
	}
	fields, err := parse(name, data)
	if err != nil {
		return nil, err
	}
	for _, key := range []string{"runtimeName", "runtimeApiVersion"} {
		v, ok := fields[strings.ToLower(key)]
		switch {
		case !ok:
			return nil, captureError(name, "no %s (found %s); want %s", key, found(fields), crictlWant)
		case strings.TrimSpace(v) == "":
			return nil, captureError(name, "%s is empty; want %s", key, crictlWant)
		}
	}
	rt := &Runtime{ReportedBy: ReportedByCrictl, Name: fields["runtimename"], APIVersion: fields["runtimeapiversion"],
		Version: fields["runtimeversion"], KubeletAPIVersion: fields["version"]}
	rt.Known = slices.Contains(KnownRuntimes(), rt.Name)
	return rt, nil
}

// crictlJSON reads the fields from a JSON object, by their keys' lower
// case; other keys are left alone, so that an object of another command
// is told by the fields it lacks.
func crictlJSON(name string, data []byte) (map[string]string, error) {
	obj, err := decodeJSONObject(name, data, crictlWant)
	if err != nil {
		return nil, err
	}
	// A key said twice is refused, as in the "Key: value" form.
	top := func(path []string) bool { return len(path) == 0 }
	if err := duplicateKey(name, data, top, "one crictl version output"); err != nil {
		return nil, err
	}
	fields := map[string]string{}
	for _, key := range crictlKeys {
		v, ok := obj[key]
		if !ok {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return nil, captureError(name, "%s is %s; want a string, as in %s", key, kind(v), crictlWant)
		}
		fields[strings.ToLower(key)] = s
	}
	for _, key := range []string{"runtimeName", "runtimeApiVersion"} {
		if _, ok := fields[strings.ToLower(key)]; !ok {
			return nil, captureError(name, "no %q (found %s); want %s", key, keys(obj), crictlWant)
		}
	}
	return fields, nil
}

// crictlLines reads "Key: value" lines: crictl version's own output, or a
// flat YAML mapping. Blank lines, "#" comments and a YAML document start
// are skipped; a key that is not one of VersionResponse's is left alone.
// A line of another shape is an error naming it.
func crictlLines(name string, data []byte) (map[string]string, error) {
	if !utf8.Valid(data) {
		return nil, captureError(name, "not text (invalid UTF-8); want %s", crictlWant)
	}
	fields := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		n := i + 1
		line = strings.TrimSuffix(line, "\r")
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' || t == "---" || logLine.MatchString(t) {
			continue
		}
		key, value, ok := strings.Cut(t, ":")
		if !ok || !fieldName.MatchString(key) || value != "" && value[0] != ' ' && value[0] != '\t' {
			return nil, &CaptureError{File: name, Line: n, Col: 1, Msg: fmt.Sprintf("not crictl version output: %q is not a line \"Key: value\"; want %s", shortValue(t), crictlWant)}
		}
		k := strings.ToLower(key)
		if !slices.ContainsFunc(crictlKeys, func(c string) bool { return strings.ToLower(c) == k }) {
			continue
		}
		if _, dup := fields[k]; dup {
			return nil, &CaptureError{File: name, Line: n, Col: 1, Msg: fmt.Sprintf("%s a second time; want one crictl version output", key)}
		}
		fields[k] = unquote(strings.TrimSpace(value))
	}
	if len(fields) == 0 {
		return nil, captureError(name, "no line of crictl version output; want %s", crictlWant)
	}
	return fields, nil
}

// logLine is a line crictl logs (logrus, on stderr): in a capture of
// both streams, it is not output.
var logLine = regexp.MustCompile(`^time="[^"]*" level=[a-z]+ `)

// found lists the fields read, for an error.
func found(fields map[string]string) string {
	var names []string
	for _, k := range crictlKeys {
		if _, ok := fields[strings.ToLower(k)]; ok {
			names = append(names, k)
		}
	}
	if len(names) == 0 {
		return "none of them"
	}
	return strings.Join(names, ", ")
}

var fieldName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// unquote removes the quotes YAML may put around a scalar ("0.1.0",
// '1.7.27').
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}
