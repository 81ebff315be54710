package harness

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"syscall"
	"time"
)

// KubeletPort is where the kubelet serves /configz and /metrics (https):
// one kubelet runs at a time.
const KubeletPort = 10250

// Kubelet is a kubelet the harness runs, standalone (no API server) unless
// Kubeconfig is set.
type Kubelet struct {
	Version string
	Bin     string
	Dir     string
	// Gates are the feature gates set in its configuration; a gate not
	// set takes the release's default.
	Gates map[string]bool
	// Kubeconfig registers the kubelet to an API server; it then runs in
	// the node's network namespace, at NodeIP.
	Kubeconfig string
	// Profiling sets enableDebuggingHandlers and enableProfilingHandler
	// (both default to true in v1beta1) explicitly, for
	// /debug/pprof/goroutine.
	Profiling bool
	// MaxPods, when not 0, is set as maxPods.
	MaxPods int
	// Endpoint, when set, is the CRI endpoint the kubelet is given
	// instead of the runtime's own (a proxy in front of it).
	CRIEndpoint string
	proc        *Process
	client      *http.Client
}

// StaticPod is a pod the kubelet runs from its manifest directory, on the
// host network (no CNI here), with the pause image, never pulled.
var StaticPod = staticPod("sleeper")

// staticPod is StaticPod's manifest under another name (its container's
// too).
func staticPod(name string) string {
	return `apiVersion: v1
kind: Pod
metadata:
  name: ` + name + `
  namespace: default
spec:
  hostNetwork: true
  restartPolicy: Always
  containers:
  - name: ` + name + `
    image: ` + PauseImage + `
    imagePullPolicy: Never
`
}

// AddStaticPods starts n more static pods at once (load-000, load-001,
// ...): each manifest is written aside and renamed into the manifest
// directory, all within milliseconds, so the kubelet's file source sees
// them together.
func (k *Kubelet) AddStaticPods(n int) error {
	manifests := filepath.Join(k.Dir, "manifests")
	aside := filepath.Join(k.Dir, "manifests-aside")
	if err := os.MkdirAll(aside, 0o755); err != nil {
		return err
	}
	for i := range n {
		name := fmt.Sprintf("load-%03d", i)
		if err := os.WriteFile(filepath.Join(aside, name+".yaml"), []byte(staticPod(name)), 0o644); err != nil {
			return err
		}
	}
	for i := range n {
		name := fmt.Sprintf("load-%03d.yaml", i)
		if err := os.Rename(filepath.Join(aside, name), filepath.Join(manifests, name)); err != nil {
			return err
		}
	}
	return nil
}

// config is the KubeletConfiguration: anonymous access to /configz and
// /metrics, cgroupfs on a cgroup v1 host, no QoS cgroups and no node
// allocatable enforcement (the machines here are VMs whose cgroups the
// kubelet does not own), and the runtime's socket.
func (k *Kubelet) config(rt *Runtime) string {
	var gates strings.Builder
	names := make([]string, 0, len(k.Gates))
	for n := range k.Gates {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&gates, "  %s: %t\n", n, k.Gates[n])
	}
	g := "featureGates: {}\n"
	if gates.Len() > 0 {
		g = "featureGates:\n" + gates.String()
	}
	if k.Profiling {
		g = "enableDebuggingHandlers: true\nenableProfilingHandler: true\n" + g
	}
	if k.MaxPods > 0 {
		g = fmt.Sprintf("maxPods: %d\n", k.MaxPods) + g
	}
	endpoint := rt.Endpoint()
	if k.CRIEndpoint != "" {
		endpoint = k.CRIEndpoint
	}
	return fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
authentication:
  anonymous:
    enabled: true
  webhook:
    enabled: false
authorization:
  mode: AlwaysAllow
cgroupDriver: cgroupfs
failSwapOn: false
failCgroupV1: false
cgroupsPerQOS: false
enforceNodeAllocatable: []
containerRuntimeEndpoint: %q
staticPodPath: %q
port: %d
readOnlyPort: 0
healthzPort: 0
%s`, endpoint, filepath.Join(k.Dir, "manifests"), KubeletPort, g)
}

// Start writes the configuration and the static pod, and starts the
// kubelet at -v=4 (the level of the evented PLEG's stream messages).
func (k *Kubelet) Start(ctx context.Context, rt *Runtime, withPod bool) error {
	manifests := filepath.Join(k.Dir, "manifests")
	if err := os.MkdirAll(manifests, 0o755); err != nil {
		return err
	}
	if withPod {
		if err := os.WriteFile(filepath.Join(manifests, "sleeper.yaml"), []byte(StaticPod), 0o644); err != nil {
			return err
		}
	}
	conf := filepath.Join(k.Dir, "kubelet.yaml")
	if err := os.WriteFile(conf, []byte(k.config(rt)), 0o644); err != nil {
		return err
	}
	args := []string{"--config=" + conf, "--root-dir=" + filepath.Join(k.Dir, "root"),
		"--cert-dir=" + filepath.Join(k.Dir, "pki"), "--hostname-override=" + NodeName, "--v=4"}
	cmd := exec.Command(k.Bin, args...)
	if k.Kubeconfig != "" {
		// nsenter enters the network namespace alone (ip netns exec would
		// also remount /sys, hiding the cgroup mounts) and execs the
		// kubelet: the PID stays the kubelet's.
		cmd = exec.Command("nsenter", append([]string{"--net=/run/netns/" + NodeNetns, "--", k.Bin, "--kubeconfig=" + k.Kubeconfig, "--node-ip=" + NodeIP}, args...)...)
	}
	cmd.Env = append(os.Environ(), "TZ=UTC")
	p, err := Start("kubelet", cmd, filepath.Join(k.Dir, "kubelet.log"))
	if err != nil {
		return err
	}
	k.proc = p
	k.client = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
		// The kubelet serves a certificate it made itself.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
	return nil
}

// Stop stops the kubelet.
func (k *Kubelet) Stop() error {
	if k.proc == nil {
		return nil
	}
	err := k.proc.Stop()
	k.proc = nil
	return err
}

// Exited says whether the kubelet has ended, with its log's last lines.
func (k *Kubelet) Exited() (bool, string) {
	if k.proc == nil {
		return true, ""
	}
	if done, err := k.proc.Exited(); done {
		return true, fmt.Sprintf("kubelet exited: %v\n%s", err, k.proc.Tail(30))
	}
	return false, ""
}

// Log is the kubelet's log file.
func (k *Kubelet) Log() string { return filepath.Join(k.Dir, "kubelet.log") }

// Scrape is one capture of the kubelet's endpoints, as kubectl get --raw
// .../proxy/configz and .../proxy/metrics give them, with when it was taken.
type Scrape struct {
	Start, End time.Time
	Configz    []byte
	Metrics    []byte
}

// Scrape reads /configz and /metrics once.
func (k *Kubelet) Scrape(ctx context.Context) (*Scrape, error) {
	s := &Scrape{Start: time.Now()}
	var err error
	if s.Configz, err = k.get(ctx, "/configz"); err != nil {
		return nil, err
	}
	if s.Metrics, err = k.get(ctx, "/metrics"); err != nil {
		return nil, err
	}
	s.End = time.Now()
	return s, nil
}

func (k *Kubelet) get(ctx context.Context, path string) ([]byte, error) {
	host := "127.0.0.1"
	if k.Kubeconfig != "" {
		host = NodeIP
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://%s:%d%s", host, KubeletPort, path), nil)
	if err != nil {
		return nil, err
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", path, resp.Status, LastLines(body, 3))
	}
	return body, nil
}

// WaitServing scrapes until the kubelet answers, and returns the first
// scrape.
func (k *Kubelet) WaitServing(ctx context.Context, within time.Duration) (*Scrape, error) {
	deadline := time.Now().Add(within)
	var last error
	for time.Now().Before(deadline) {
		if done, why := k.Exited(); done {
			return nil, fmt.Errorf("%s", why)
		}
		s, err := k.Scrape(ctx)
		if err == nil {
			return s, nil
		}
		last = err
		time.Sleep(100 * time.Millisecond)
	}
	return nil, fmt.Errorf("the kubelet did not serve /configz and /metrics within %s: %v\n%s", within, last, k.proc.Tail(30))
}

// LogLine is one line of the kubelet's klog output.
type LogLine struct {
	Time     time.Time
	Severity string
	Source   string // file:line
	Text     string
	Raw      string // the line as logged
}

var klogHeader = regexp.MustCompile(`^([IWEF])(\d{2})(\d{2}) (\d{2}:\d{2}:\d{2}\.\d{6})\s+\d+ ([^\]]+)\] (.*)$`)

// ReadLog parses the kubelet's log. klog's header has no year: the
// year is that of now.
func ReadLog(file string) ([]LogLine, error) {
	return ReadLogOf(file, time.Now().UTC().Year())
}

// ReadLogOf parses a kubelet's log written in year (a saved run's).
func ReadLogOf(file string, year int) ([]LogLine, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []LogLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		m := klogHeader.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		t, err := time.Parse("2006-01-02 15:04:05.000000", fmt.Sprintf("%d-%s-%s %s", year, m[2], m[3], m[4]))
		if err != nil {
			continue
		}
		lines = append(lines, LogLine{Time: t, Severity: m[1], Source: m[5], Text: m[6], Raw: sc.Text()})
	}
	return lines, sc.Err()
}

// First returns the first line at or before t that holds text, or nil.
func First(lines []LogLine, text string, t time.Time) *LogLine {
	for i := range lines {
		if lines[i].Time.After(t) {
			return nil
		}
		if strings.Contains(lines[i].Text, text) {
			return &lines[i]
		}
	}
	return nil
}

// Answer is how one request to a kubelet endpoint went: when it was
// sent, how long it took to answer or fail, the status and size of an
// answer, or the client's error text; TimedOut when the client gave up
// at its timeout, Refused when nothing accepted the connection.
type Answer struct {
	Path     string        `json:"path"`
	Start    time.Time     `json:"start"`
	Took     time.Duration `json:"took"`
	Timeout  time.Duration `json:"timeout"`
	Status   int           `json:"status,omitempty"`
	Bytes    int           `json:"bytes,omitempty"`
	Err      string        `json:"error,omitempty"`
	TimedOut bool          `json:"timedOut,omitempty"`
	Refused  bool          `json:"refused,omitempty"`
	Body     []byte        `json:"-"`
}

// OK says whether the endpoint answered 200.
func (a Answer) OK() bool { return a.Err == "" && a.Status == http.StatusOK }

// Get requests path once with a client of its own whose timeout is
// timeout, and says how it went.
func (k *Kubelet) Get(ctx context.Context, path string, timeout time.Duration) Answer {
	host := "127.0.0.1"
	if k.Kubeconfig != "" {
		host = NodeIP
	}
	a := Answer{Path: path, Start: time.Now(), Timeout: timeout}
	client := &http.Client{Timeout: timeout, Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{InsecureSkipVerify: true},
		DisableKeepAlives: true,
	}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("https://%s:%d%s", host, KubeletPort, path), nil)
	if err != nil {
		a.Err = err.Error()
		return a
	}
	resp, err := client.Do(req)
	if err == nil {
		a.Status = resp.StatusCode
		a.Body, err = io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		a.Bytes = len(a.Body)
	}
	a.Took = time.Since(a.Start)
	if err != nil {
		a.Err = err.Error()
		var ne interface{ Timeout() bool }
		a.TimedOut = errors.As(err, &ne) && ne.Timeout()
		a.Refused = errors.Is(err, syscall.ECONNREFUSED)
	}
	return a
}
