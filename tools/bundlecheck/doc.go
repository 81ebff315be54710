// Package bundlecheck holds plegvet alerts -o bundle to the types that
// read it: prometheus-operator's PrometheusRule and k8s.io/api's
// ConfigMap, each file decoded strictly (an unknown or mistyped field is
// an error). It is a module of its own so that plegvet's own
// dependencies stay small: those types come with Kubernetes' apimachinery.
package bundlecheck
