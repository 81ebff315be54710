// Extract: what it is handed, and the answer put together from its
// parts, each read in its own file: collectors.go (which collectors
// /metrics serves, followed through followcalls.go), statsproviders.go,
// deadline.go and percall.go (the CRI client's deadlines), status.go
// (the status loop and the node status call), relist.go, defaults.go;
// index.go is what they all look up.

package runtimehang

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/plegvet/plegvet/constvalue"
)

// CRIAPIPackage is the package declaring the CRI's service interfaces
// (internalapi.RuntimeService, ImageManagerService): a call of one of
// their methods is a call of the runtime.
const CRIAPIPackage = "k8s.io/cri-api/pkg/apis"

// Package is one package's typed syntax. Bodies says whether its
// function bodies were type-checked (a package read for its
// declarations only has none to follow).
type Package struct {
	Path   string
	Files  []*ast.File
	Info   *types.Info
	Bodies bool
}

// Input is what Extract reads: pkg/kubelet, the packages read from
// source beside it (collectors, the stats providers, the node status
// setters, the configuration defaults, the CRI API), and the runtime-down
// threshold the health rule read from pkg/kubelet (plegperiods'
// RuntimeDown; nil when not found), carried into the answer.
type Input struct {
	Fset        *token.FileSet
	Kubelet     Package
	Others      []Package
	RuntimeDown *constvalue.Value
}

// Extract reads what a hung runtime does to the kubelet of in.
func Extract(in Input) *Hang {
	p := newProg(in)
	h := &Hang{Collectors: []Collector{}, StatsProviders: []StatsProvider{}}
	k := &in.Kubelet
	h.Collectors = p.collectors(k)
	registered := len(h.Collectors) > 0
	// The server's other paths: its own registries' collectors, and its
	// handlers, after the kubelet's /metrics.
	h.Collectors = append(h.Collectors, p.collectors(p.serverPackages()...)...)
	h.Collectors = append(h.Collectors, p.handlers()...)
	h.StatsProviders = p.statsProviders(k)
	h.Deadline = p.deadline(k)
	if h.Deadline != nil {
		p.perCall(h)
	}
	runtimeIface := p.statusLoop(k, h)
	if runtimeIface != nil {
		h.NodeStatus = p.nodeStatus(k, runtimeIface)
	}
	h.NodeStatusFrequency = p.settingDefault(NodeStatusFrequencySetting)
	h.RuntimeDown = in.RuntimeDown
	h.Relist = p.relist()
	var why []string
	if !registered {
		why = append(why, "pkg/kubelet registers no collector: no call passes the result of a constructor whose type has a Collect or CollectWithStability method read from source")
	}
	if h.StatusLoop == nil {
		why = append(why, "no method of pkg/kubelet calls the runtime's Status (a method of an interface also declaring Version) and is run periodically")
	}
	if h.Deadline == nil {
		why = append(why, "no variable of the CRI API's RuntimeService ("+CRIAPIPackage+", read from source) is assigned a construction taking a duration")
	}
	h.Unknown = strings.Join(why, "; ")
	return h
}

// readPackages are the kubelet's packages whose bodies the answer
// follows, by their path under the module: the collectors, their
// registration, the stats providers, the node status setters, the
// configuration defaults, the CRI client (pkg/kubelet/cri/remote, later
// the staging module k8s.io/cri-client, read when the tree holds it).
var readPackages = []string{"/pkg/kubelet/metrics/collectors", "/pkg/kubelet/metrics", "/pkg/kubelet/stats", "/pkg/kubelet/nodestatus", "/" + ConfigDefaultsPackage, "/pkg/kubelet/cri/remote", "k8s.io/cri-client/pkg", "/pkg/kubelet/pleg", "/pkg/kubelet/kuberuntime", "/" + ServerPackage, "/" + ServerPackage + "/stats"}

// Reads reports whether the answer follows calls through an import's
// function bodies: a loader checks them whole.
func Reads(importPath string) bool {
	return slices.ContainsFunc(readPackages, func(s string) bool { return strings.HasSuffix(importPath, s) })
}

// FromSource reports whether an import is worth reading from source for
// the answer: those it Reads, and, for their declarations, the kubelet's
// runtime interface (pkg/kubelet/container) and the CRI API's services.
func FromSource(importPath string) bool {
	return Reads(importPath) || strings.HasSuffix(importPath, "/pkg/kubelet/container") || importPath == CRIAPIPackage
}
