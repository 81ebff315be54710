package harness

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// Ports of the control plane: etcd on loopback, the API server at HostIP.
const (
	EtcdClientPort = 23790
	EtcdPeerPort   = 23800
	APIServerPort  = 16443
)

// The users of the API server's token file: the cluster's admin, the
// node's kubelet, and a node engineer in the group the README's
// ClusterRoleBinding names.
const (
	AdminToken    = "plegvet-admin-token"
	NodeToken     = "plegvet-node-token"
	EngineerToken = "plegvet-engineer-token"
	EngineerGroup = "node-engineers"
	NodeName      = "plegvet-node"
)

// ControlPlane is etcd (Debian's) and a kube-apiserver built from the
// release's source.
type ControlPlane struct {
	Dir        string
	etcd, apis *Process
}

// StartControlPlane starts etcd and the API server and waits until the
// API server is ready.
func StartControlPlane(ctx context.Context, apiserver, dir string) (*ControlPlane, error) {
	cp := &ControlPlane{Dir: dir}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	etcd := exec.Command("etcd", "--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", fmt.Sprintf("http://127.0.0.1:%d", EtcdClientPort),
		"--advertise-client-urls", fmt.Sprintf("http://127.0.0.1:%d", EtcdClientPort),
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", EtcdPeerPort),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", EtcdPeerPort),
		"--initial-cluster", fmt.Sprintf("default=http://127.0.0.1:%d", EtcdPeerPort))
	var err error
	if cp.etcd, err = Start("etcd", etcd, filepath.Join(dir, "etcd.log")); err != nil {
		return nil, err
	}
	key := filepath.Join(dir, "sa.key")
	if err := writeRSAKey(key); err != nil {
		cp.Stop()
		return nil, err
	}
	tokens := fmt.Sprintf("%s,admin,admin,system:masters\n%s,system:node:%s,node,system:nodes\n%s,jane,jane,%s\n",
		AdminToken, NodeToken, NodeName, EngineerToken, EngineerGroup)
	if err := os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(tokens), 0o600); err != nil {
		cp.Stop()
		return nil, err
	}
	apis := exec.Command(apiserver,
		"--etcd-servers", fmt.Sprintf("http://127.0.0.1:%d", EtcdClientPort),
		"--bind-address", HostIP, "--advertise-address", HostIP,
		"--secure-port", fmt.Sprint(APIServerPort),
		"--cert-dir", filepath.Join(dir, "pki"),
		"--token-auth-file", filepath.Join(dir, "tokens.csv"),
		"--authorization-mode", "Node,RBAC",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", key, "--service-account-signing-key-file", key,
		"--service-cluster-ip-range", "10.96.0.0/24",
		// No kubernetes Service endpoint: nothing here needs it.
		"--endpoint-reconciler-type", "none",
		// The node's InternalIP is NodeIP, in the harness's own network
		// namespace.
		"--kubelet-preferred-address-types", "InternalIP")
	if cp.apis, err = Start("kube-apiserver", apis, filepath.Join(dir, "apiserver.log")); err != nil {
		cp.Stop()
		return nil, err
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		code, body, err := cp.Do(ctx, AdminToken, http.MethodGet, "/readyz", nil)
		if err == nil && code == http.StatusOK {
			return cp, nil
		}
		if done, werr := cp.apis.Exited(); done {
			cp.Stop()
			return nil, fmt.Errorf("kube-apiserver exited: %v\n%s\netcd:\n%s", werr, cp.apis.Tail(20), cp.etcd.Tail(10))
		}
		if time.Now().After(deadline) {
			cp.Stop()
			return nil, fmt.Errorf("kube-apiserver not ready within 3m: %v %d %s\n%s", err, code, body, cp.apis.Tail(20))
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// Stop stops the API server, then etcd.
func (cp *ControlPlane) Stop() {
	if cp.apis != nil {
		cp.apis.Stop()
	}
	if cp.etcd != nil {
		cp.etcd.Stop()
	}
}

// Kubeconfig writes a kubeconfig for a token's user and returns its path.
func (cp *ControlPlane) Kubeconfig(name, token string) (string, error) {
	file := filepath.Join(cp.Dir, name+".kubeconfig")
	conf := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://%s:%d
    insecure-skip-tls-verify: true
users:
- name: %s
  user:
    token: %s
contexts:
- name: local
  context:
    cluster: local
    user: %s
current-context: local
`, HostIP, APIServerPort, name, token, name)
	return file, os.WriteFile(file, []byte(conf), 0o600)
}

// Do sends one request to the API server as a token's user.
func (cp *ControlPlane) Do(ctx context.Context, token, method, path string, body []byte) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, fmt.Sprintf("https://%s:%d%s", HostIP, APIServerPort, path), bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, // the API server's own self-signed certificate
	}}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	return resp.StatusCode, data, err
}

func writeRSAKey(file string) error {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	return os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)}), 0o600)
}
