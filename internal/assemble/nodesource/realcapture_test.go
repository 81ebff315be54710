package nodesource_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/plegvet/plegvet"
	"github.com/plegvet/plegvet/nodeverdict"
)

// realCapture is one kept scenario of a real kubelet
// (nodeverdict/testdata/real/RELEASE/NAME): its configz and last good
// scrape, and plegvet's index entry for its release.
type realCapture struct {
	t    *testing.T
	dir  string
	src  *plegvet.NodeSource
	cfg  *nodeverdict.Config
	last *nodeverdict.Metrics
}

func loadCapture(t *testing.T, release, name string) *realCapture {
	t.Helper()
	c := &realCapture{t: t, dir: filepath.Join("..", "..", "..", "nodeverdict", "testdata", "real", release, name)}
	var err error
	if c.cfg, err = nodeverdict.ReadConfigz("configz.json", c.file("configz.json")); err != nil {
		t.Fatal(err)
	}
	if c.last, err = nodeverdict.ReadMetrics("last-good.txt", c.file("last-good.txt")); err != nil {
		t.Fatal(err)
	}
	if c.src, err = plegvet.LoadNodeSource(context.Background(), plegvet.Options{}, release); err != nil {
		t.Fatal(err)
	}
	return c
}

// loadLadderCapture is loadCapture for a test of the latency ladder: the
// index must hold the release's ladder.
func loadLadderCapture(t *testing.T, release, name string) *realCapture {
	t.Helper()
	c := loadCapture(t, release, name)
	if c.src.Ladder == nil {
		t.Fatalf("the index holds no ladder for %s", release)
	}
	return c
}

// file is the capture's file name.
func (c *realCapture) file(name string) []byte {
	c.t.Helper()
	return read(c.t, c.dir, name)
}

// node is the capture's Node object in name.
func (c *realCapture) node(name string) *nodeverdict.NodeStatus {
	c.t.Helper()
	n, err := nodeverdict.ReadNode(name, c.file(name))
	if err != nil {
		c.t.Fatal(err)
	}
	return n
}

// decide decides the node's health with src (the index entry when nil),
// the failed metrics request in failure (as kubectl pleg --save keeps
// it), the Node object n, at the RFC 3339 time at.
func (c *realCapture) decide(src *plegvet.NodeSource, failure []byte, n *nodeverdict.NodeStatus, at string) nodeverdict.Health {
	c.t.Helper()
	if src == nil {
		src = c.src
	}
	f, err := nodeverdict.ReadMetricsFailure("metrics-error.txt", failure)
	if err != nil {
		c.t.Fatal(err)
	}
	when, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		c.t.Fatal(err)
	}
	rep, err := src.Decide(plegvet.NodeCapture{Config: c.cfg, MetricsFailure: f, LastMetrics: c.last, Node: n, At: &when})
	if err != nil {
		c.t.Fatal(err)
	}
	return rep.Health
}
