// Package v1beta1 is a look-alike of the kubelet configuration's defaults.
package v1beta1

import "time"

// Duration wraps a time.Duration as the API's does.
type Duration struct{ Duration time.Duration }

// KubeletConfiguration is the versioned configuration.
type KubeletConfiguration struct {
	RuntimeRequestTimeout Duration `json:"runtimeRequestTimeout,omitempty"`
}

// SetDefaults_KubeletConfiguration fills what is unset.
func SetDefaults_KubeletConfiguration(obj *KubeletConfiguration) {
	if obj.RuntimeRequestTimeout == (Duration{}) {
		obj.RuntimeRequestTimeout = Duration{Duration: 2 * time.Minute}
	}
}
