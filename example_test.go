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

// Inspect answers the whole question for a tree: which PLEG a node that
// does not set the gate runs, the two relist periods, and why relist stays.
func ExampleInspect() {
	rep, err := plegvet.Inspect(context.Background(), plegvet.Options{Dir: "testdata/src/k8s.io/kubernetes"})
	if err != nil {
		log.Fatal(err)
	}
	rl := rep.Relist
	fmt.Println("default PLEG:", rep.DefaultPLEG)
	fmt.Printf("gate off: relist %s (%s)\n", rl.GateOff.Period.Value, rl.GateOff.Period.Const)
	fmt.Printf("gate on:  relist %s (%s), x%g\n", rl.GateOn.Period.Value, rl.GateOn.Period.Const, *rl.Ratio)
	fmt.Printf("stream:   %s.%s at %s:%d\n", rep.RPC.Service, rep.RPC.Name, rep.RPC.Pos.File, rep.RPC.Pos.Line)
	// Output:
	// default PLEG: generic
	// gate off: relist 1s (genericPlegRelistPeriod)
	// gate on:  relist 5m0s (eventedPlegRelistPeriod), x300
	// stream:   RuntimeService.GetContainerEvents at staging/src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto:11
}

// EventStream reads the CRI api.proto's GetContainerEvents and the evented
// PLEG's calls of it.
func ExampleEventStream() {
	rep, err := plegvet.EventStream(context.Background(), plegvet.Options{Dir: "testdata/src/k8s.io/kubernetes"})
	if err != nil {
		log.Fatal(err)
	}
	r := rep.RPC
	fmt.Printf("rpc %s(%s) returns (stream %t %s)\n", r.Name, r.Request, r.ServerStreaming, r.Response)
	for _, c := range r.GoCalls {
		fmt.Printf("called at %s:%d\n", c.File, c.Line)
	}
	// Output:
	// rpc GetContainerEvents(GetEventsRequest) returns (stream true ContainerEventResponse)
	// called at pkg/kubelet/pleg/evented.go:38
}

// Node decides which PLEG a live node runs from its captured configz and
// metrics, with the gate's default read from source.
func ExampleNode() {
	rep, err := plegvet.Node(context.Background(), plegvet.NodeOptions{
		Options: plegvet.Options{Dir: "testdata/src/k8s.io/kubernetes"},
		NodeFiles: plegvet.NodeFiles{
			Configz: "nodeverdict/testdata/configz/on.json",
			Metrics: "nodeverdict/testdata/metrics/evented.txt",
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rep.Verdict, "on", rep.Gate.KubeletVersion)
	fmt.Println("first reason:", rep.Reasons[0].Claim)
	// Output:
	// evented on v1.36.1-eks-1a2b3c4
	// first reason: the kubelet reports EventedPLEG on
}

// Timeline answers for several releases, fetched with the go command;
// Releases expands a range to the newest patch of each minor.
func ExampleTimeline() {
	ctx := context.Background()
	versions, err := plegvet.Releases(ctx, "v1.35.0..v1.37.2", plegvet.FetchOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, rep := range plegvet.Timeline(ctx, versions, plegvet.TimelineOptions{Workers: 2}) {
		if rep.Error != "" {
			fmt.Println(rep.Source.KubernetesVersion, "error:", rep.Error)
			continue
		}
		fmt.Println(rep.Source.KubernetesVersion, rep.DefaultPLEG, rep.Relist.GateOn.Period.Value)
	}
}
