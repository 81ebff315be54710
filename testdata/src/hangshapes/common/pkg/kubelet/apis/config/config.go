// Package config is a look-alike of the kubelet's configuration.
package config

import "time"

// Duration wraps a time.Duration as the API's does.
type Duration struct{ Duration time.Duration }

// KubeletConfiguration holds the settings read.
type KubeletConfiguration struct {
	RuntimeRequestTimeout    Duration
	ContainerRuntimeEndpoint string
}
