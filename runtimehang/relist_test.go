package runtimehang_test

import (
	"reflect"
	"strings"
	"testing"
)

// The relist's calls, followed through the runtime manager to the CRI:
// its list (once per relist) and its inspection of each changed pod; the
// on-demand GetPod is not the relist's.
func TestRelistCalls(t *testing.T) {
	h := hangOf(t, "v137", "")
	r := h.Relist
	if r == nil {
		t.Fatal("no relist found")
	}
	if r.List.Func != "Runtime.GetPods" || !strings.HasSuffix(r.List.Pos.File, "pleg/generic.go") {
		t.Errorf("list = %+v", r.List)
	}
	if got, want := r.ListMethods(), []string{"RuntimeService.ListContainers", "RuntimeService.ListPodSandbox"}; !reflect.DeepEqual(got, want) {
		t.Errorf("list calls %v, want %v", got, want)
	}
	var inspect []string
	for _, s := range r.Inspect {
		inspect = append(inspect, s.Func)
	}
	if want := []string{"Runtime.GetPodStatus"}; !reflect.DeepEqual(inspect, want) {
		t.Errorf("inspections %v, want %v", inspect, want)
	}
	if got, want := r.InspectMethods(), []string{"RuntimeService.ContainerStatus", "RuntimeService.PodSandboxStatus"}; !reflect.DeepEqual(got, want) {
		t.Errorf("inspection calls %v, want %v", got, want)
	}
}

// Mutants: without the runtime manager's bodies the list reaches no CRI
// call and says why; without the PLEG's package there is no relist.
func TestRelistMutants(t *testing.T) {
	h := hangOf(t, "v137", "", "hangshapes/common/pkg/kubelet/kuberuntime")
	if r := h.Relist; r == nil || len(r.ListCalls) != 0 || len(r.Unresolved) == 0 {
		t.Errorf("without kuberuntime: %+v", r)
	} else if !strings.Contains(r.Unresolved[0].Why, "implements Runtime") {
		t.Errorf("unresolved says %q", r.Unresolved[0].Why)
	}
	if h := hangOf(t, "v137", "", "hangshapes/common/pkg/kubelet/pleg"); h.Relist != nil {
		t.Errorf("without the PLEG package: %+v", h.Relist)
	}
}
