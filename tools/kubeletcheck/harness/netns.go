package harness

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
)

// The node's test network: a network namespace of the harness's own,
// linked to the host by a veth pair. The API server refuses to proxy to
// a loopback address, and a kubelet refuses a loopback --node-ip, so a
// registered kubelet runs in the namespace at NodeIP, and the API server
// listens at HostIP, the host's end of the pair. No traffic leaves the
// pair.
const (
	NodeNetns = "plegvet-node"
	HostIP    = "10.250.0.1"
	NodeIP    = "10.250.0.2"
	hostVeth  = "plegvet-h0"
	nodeVeth  = "plegvet-n0"
)

// CreateNodeNetwork makes the namespace and the pair, removing what an
// earlier run left; the returned function removes them.
func CreateNodeNetwork(ctx context.Context) (func(), error) {
	remove := func() {
		exec.Command("ip", "netns", "del", NodeNetns).Run()
		exec.Command("ip", "link", "del", hostVeth).Run()
	}
	remove()
	steps := [][]string{
		{"netns", "add", NodeNetns},
		{"link", "add", hostVeth, "type", "veth", "peer", "name", nodeVeth},
		{"link", "set", nodeVeth, "netns", NodeNetns},
		{"addr", "add", HostIP + "/30", "dev", hostVeth},
		{"link", "set", hostVeth, "up"},
		{"netns", "exec", NodeNetns, "ip", "addr", "add", NodeIP + "/30", "dev", nodeVeth},
		{"netns", "exec", NodeNetns, "ip", "link", "set", nodeVeth, "up"},
		{"netns", "exec", NodeNetns, "ip", "link", "set", "lo", "up"},
	}
	for _, s := range steps {
		if out, err := exec.CommandContext(ctx, "ip", s...).CombinedOutput(); err != nil {
			remove()
			return nil, fmt.Errorf("%w: ip %s: %v: %s", ErrUnsupported, strings.Join(s, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return remove, nil
}
