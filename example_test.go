package plegvet_test

import (
	"context"
	"fmt"
	"log"

	"github.com/plegvet/plegvet"
)

// Gates answers for a checkout (here, the look-alike tree in testdata);
// Options{Kubernetes: "v1.36.1"} answers for a release without one.
func ExampleGates() {
	rep, err := plegvet.Gates(context.Background(), plegvet.Options{Dir: "testdata/src/k8s.io/kubernetes"}, "EventedPLEG")
	if err != nil {
		log.Fatal(err)
	}
	g := rep.Gates[0]
	s, _ := g.At("v1.36.1")
	fmt.Printf("%s: %s, default %t, declared at %s:%d\n", g.Name, s.PreRelease, s.Default, g.Decl.File, g.Decl.Line)
	fmt.Println("loaded from", rep.Source.Load.Mode)
	// Output:
	// EventedPLEG: Alpha, default false, declared at pkg/features/kube_features.go:16
	// loaded from source
}
