package fleet

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// The ClusterRole the README shows grants what the plugin asks of the
// API server (nodes get/list, nodes/proxy get) and nothing more; its
// binding names it. A user copies it as it stands.
func TestReadmeClusterRole(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1)
	if len(blocks) == 0 {
		t.Fatal("README.md has no yaml block")
	}
	var role *rbacv1.ClusterRole
	var binding *rbacv1.ClusterRoleBinding
	for _, b := range blocks {
		for _, doc := range strings.Split(b[1], "\n---\n") {
			var meta struct{ Kind string }
			if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
				t.Fatalf("README yaml does not parse: %v\n%s", err, doc)
			}
			switch meta.Kind {
			case "ClusterRole":
				role = &rbacv1.ClusterRole{}
				if err := yaml.UnmarshalStrict([]byte(doc), role); err != nil {
					t.Fatalf("ClusterRole: %v", err)
				}
			case "ClusterRoleBinding":
				binding = &rbacv1.ClusterRoleBinding{}
				if err := yaml.UnmarshalStrict([]byte(doc), binding); err != nil {
					t.Fatalf("ClusterRoleBinding: %v", err)
				}
			}
		}
	}
	if role == nil || binding == nil {
		t.Fatalf("README shows ClusterRole %v, ClusterRoleBinding %v; want both", role != nil, binding != nil)
	}
	granted := map[string]bool{}
	for _, r := range role.Rules {
		for _, g := range r.APIGroups {
			for _, res := range r.Resources {
				for _, v := range r.Verbs {
					granted[g+"/"+res+":"+v] = true
				}
			}
		}
	}
	want := map[string]bool{"/nodes:get": true, "/nodes:list": true, "/nodes/proxy:get": true}
	for k := range want {
		if !granted[k] {
			t.Errorf("the ClusterRole does not grant %s", k)
		}
	}
	for k := range granted {
		if !want[k] {
			t.Errorf("the ClusterRole grants %s, which the plugin does not use", k)
		}
	}
	if binding.RoleRef.Kind != "ClusterRole" || binding.RoleRef.Name != role.Name {
		t.Errorf("the binding refers to %s %q, not the ClusterRole %q", binding.RoleRef.Kind, binding.RoleRef.Name, role.Name)
	}
}
