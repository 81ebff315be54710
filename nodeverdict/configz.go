package nodeverdict

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"time"
)

// configzWant is what a configz file should be, for error messages.
const configzWant = `{"kubeletconfig": {...}}, the output of kubectl get --raw /api/v1/nodes/NODE/proxy/configz`

// Config is what the kubelet's configz says about feature gates.
type Config struct {
	// FeatureGates is kubeletconfig.featureGates; empty when unset.
	FeatureGates map[string]bool `json:"featureGates"`
	// RuntimeRequestTimeout is kubeletconfig.runtimeRequestTimeout, the
	// deadline of every CRI call but the long-running ones, as Go prints
	// a duration ("2m0s"); "" when configz does not say it.
	RuntimeRequestTimeout string `json:"runtimeRequestTimeout,omitempty"`
	// NodeStatusUpdateFrequency is kubeletconfig.nodeStatusUpdateFrequency,
	// how often the kubelet computes its node status (its Ready condition
	// among it), as Go prints a duration; "" when configz does not say it.
	NodeStatusUpdateFrequency string `json:"nodeStatusUpdateFrequency,omitempty"`
}

// RequestTimeout is RuntimeRequestTimeout as a duration; 0 when not known.
func (c *Config) RequestTimeout() time.Duration {
	if c == nil {
		return 0
	}
	return positiveDuration(c.RuntimeRequestTimeout)
}

// StatusFrequency is NodeStatusUpdateFrequency as a duration; 0 when not
// known.
func (c *Config) StatusFrequency() time.Duration {
	if c == nil {
		return 0
	}
	return positiveDuration(c.NodeStatusUpdateFrequency)
}

// positiveDuration is text as a duration; 0 when it is none, or not
// positive.
func positiveDuration(text string) time.Duration {
	d, err := time.ParseDuration(text)
	if err != nil || d <= 0 {
		return 0
	}
	return d
}

// Gate returns a gate's value in configz, and whether configz sets it.
func (c *Config) Gate(name string) (value, set bool) {
	value, set = c.FeatureGates[name]
	return value, set
}

// ReadConfigz reads the output of the kubelet's /configz endpoint. Name is
// the file's name, for errors.
func ReadConfigz(name string, data []byte) (*Config, error) {
	top, err := decodeJSONObject(name, data, configzWant)
	if err != nil {
		return nil, err
	}
	// A key said twice where the reader looks is refused before any value
	// is read: encoding/json would keep the second silently. So is a key
	// the reader knows written in another case ("featuregates"), which it
	// would read as absent.
	if err := checkKeys(name, data, configzLevels, configzKeys, "each key once, as in one kubelet's configz"); err != nil {
		return nil, err
	}
	raw, ok := top["kubeletconfig"]
	if !ok {
		// A KubeletConfiguration file (kind, apiVersion) is the usual mistake.
		return nil, captureError(name, "no \"kubeletconfig\" key (found %s); want %s", keys(top), configzWant)
	}
	kc, ok := raw.(map[string]any)
	if !ok {
		return nil, captureError(name, "kubeletconfig is %s; want an object, as in %s", kind(raw), configzWant)
	}
	cfg := &Config{FeatureGates: map[string]bool{}}
	for _, f := range []struct {
		key, example string
		to           *string
	}{{"runtimeRequestTimeout", "2m0s", &cfg.RuntimeRequestTimeout}, {"nodeStatusUpdateFrequency", "10s", &cfg.NodeStatusUpdateFrequency}} {
		raw, ok := kc[f.key]
		if !ok || raw == nil {
			continue
		}
		text, ok := raw.(string)
		d, err := time.ParseDuration(text)
		if !ok || err != nil || d <= 0 {
			return nil, captureError(name, "kubeletconfig.%s is %s; want a positive Go duration such as %q", f.key, kind(raw), f.example)
		}
		*f.to = d.String()
	}
	raw, ok = kc["featureGates"]
	if !ok || raw == nil {
		return cfg, nil
	}
	fg, ok := raw.(map[string]any)
	if !ok {
		return nil, captureError(name, "kubeletconfig.featureGates is %s; want an object of gate names to true or false", kind(raw))
	}
	for _, n := range slices.Sorted(maps.Keys(fg)) { // the first bad gate, in a stable order
		b, ok := fg[n].(bool)
		if !ok {
			return nil, captureError(name, "kubeletconfig.featureGates.%s is %s; want true or false", gateKey(n), kind(fg[n]))
		}
		cfg.FeatureGates[n] = b
	}
	return cfg, nil
}

// configzLevels says the objects ReadConfigz reads keys of: the top,
// kubeletconfig, and kubeletconfig.featureGates.
func configzLevels(path []string) bool {
	levels := []string{"kubeletconfig", "featureGates"}
	return len(path) <= len(levels) && slices.Equal(path, levels[:len(path)])
}

// configzKeys are the keys ReadConfigz knows in each object it reads:
// kubeletconfig at the top, featureGates in it, and in that the gate the
// verdict is about (a fork may name its gate otherwise: Config.Gate looks
// that one up as written).
func configzKeys(path []string) []string {
	return [][]string{{"kubeletconfig"}, {"featureGates", "runtimeRequestTimeout", "nodeStatusUpdateFrequency"}, {EventedPLEGGate}}[len(path)]
}

// EventedPLEGGate is the feature gate behind the evented PLEG (KEP-3386),
// unless the tree's kubelet tests a gate of another name.
const EventedPLEGGate = "EventedPLEG"

var plainKey = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]*$`)

// gateKey prints a gate name as a path element, quoted unless it is a
// plain name, so that an error stays one readable line.
func gateKey(n string) string {
	if plainKey.MatchString(n) {
		return n
	}
	return fmt.Sprintf("%q", n)
}
