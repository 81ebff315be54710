package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// BuildKubectlPleg builds kubectl-pleg from its module at dir into out.
func BuildKubectlPleg(ctx context.Context, dir, out string) (string, error) {
	bin := filepath.Join(out, "kubectl-pleg")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/kubectl-pleg")
	cmd.Dir = dir
	if data, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building kubectl-pleg: %v\n%s", err, data)
	}
	return bin, nil
}

// ReadmeRBAC reads the ClusterRole and ClusterRoleBinding the README at
// readme gives (kubectl-pleg's): the ones a cluster admin copies.
func ReadmeRBAC(readme string) (role, binding map[string]any, err error) {
	data, err := os.ReadFile(readme)
	if err != nil {
		return nil, nil, err
	}
	for _, b := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		if !strings.Contains(b[1], "kind: ClusterRole\n") {
			continue
		}
		dec := yaml.NewDecoder(strings.NewReader(b[1]))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				break
			}
			switch doc["kind"] {
			case "ClusterRole":
				role = doc
			case "ClusterRoleBinding":
				binding = doc
			}
		}
	}
	if role == nil || binding == nil {
		return nil, nil, fmt.Errorf("%s has no yaml block with a ClusterRole and a ClusterRoleBinding", readme)
	}
	return role, binding, nil
}

// ApplyReadmeRBAC creates the ClusterRole and ClusterRoleBinding the
// README at readme gives (kubectl-pleg's), as the admin.
func ApplyReadmeRBAC(ctx context.Context, cp *ControlPlane, readme string) error {
	role, binding, err := ReadmeRBAC(readme)
	if err != nil {
		return err
	}
	for path, obj := range map[string]any{"/apis/rbac.authorization.k8s.io/v1/clusterroles": role, "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings": binding} {
		body, _ := json.Marshal(obj)
		code, out, err := cp.Do(ctx, AdminToken, http.MethodPost, path, body)
		if err != nil || code != http.StatusCreated {
			return fmt.Errorf("POST %s: %v %d %s", path, err, code, out)
		}
	}
	return nil
}
