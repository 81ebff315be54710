package plegvet_test

import (
	"context"
	"fmt"
	"log"

	"github.com/plegvet/plegvet"
)

// GateHistory follows a gate through releases, each read from its own
// source: here the first release of 1.26, 1.27 and 1.30, where the
// EventedPLEG Beta of v1.27.0 shows although no later release's spec list
// keeps it. It fetches the releases with the go command, so this example
// is compiled, not run; it prints
//
//	v1.26.0: Alpha, default false (pkg/features/kube_features.go:994)
//	v1.27.0: Beta, default false (pkg/features/kube_features.go:995)
//	v1.30.0: Alpha, default false (pkg/features/kube_features.go:1063)
//	v1.27.0: promoted Alpha -> Beta
//	v1.30.0: demoted Beta -> Alpha
func ExampleGateHistory() {
	rep, err := plegvet.GateHistory(context.Background(), plegvet.HistoryOptions{Kubernetes: "v1.26.0,v1.27.0,v1.30.0"}, "EventedPLEG")
	if err != nil {
		log.Fatal(err)
	}
	g := rep.Gates[0]
	for _, r := range g.Releases {
		switch {
		case r.Error != "":
			fmt.Printf("%s: not read: %s\n", r.KubernetesVersion, r.Error)
		case !r.Exists:
			fmt.Printf("%s: no such gate\n", r.KubernetesVersion)
		case r.Effective == nil:
			fmt.Printf("%s: declared, no spec in force\n", r.KubernetesVersion)
		default:
			fmt.Printf("%s: %s, default %t (%s:%d)\n", r.KubernetesVersion, r.Effective.PreRelease, r.Effective.Default, r.Effective.Pos.File, r.Effective.Pos.Line)
		}
	}
	for _, c := range g.Changes {
		fmt.Printf("%s: %s\n", c.KubernetesVersion, c.What)
	}
}
