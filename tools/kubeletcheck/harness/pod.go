package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"syscall"
	"time"
)

// RunningContainer waits until the static pod's container runs and
// returns its ID and PID.
func (r *Runtime) RunningContainer(ctx context.Context, name string, within time.Duration) (id string, pid int, err error) {
	deadline := time.Now().Add(within)
	for {
		out, err := r.CrictlRun(ctx, "ps", "--name", name, "--state", "Running", "-q")
		if id = strings.TrimSpace(string(out)); err == nil && id != "" {
			id = strings.Fields(id)[0]
			break
		}
		if time.Now().After(deadline) {
			return "", 0, fmt.Errorf("container %s did not run within %s: %v %s", name, within, err, strings.TrimSpace(string(out)))
		}
		time.Sleep(250 * time.Millisecond)
	}
	out, err := r.CrictlRun(ctx, "inspect", id)
	if err != nil {
		return "", 0, err
	}
	var info struct {
		Info struct {
			Pid int `json:"pid"`
		} `json:"info"`
	}
	if err := json.Unmarshal(out, &info); err != nil || info.Info.Pid <= 0 {
		return "", 0, fmt.Errorf("crictl inspect %s: no pid (%v)", id, err)
	}
	return id, info.Info.Pid, nil
}

// KillContainer waits for the named container to run and kills its
// process with SIGKILL, as an OOM kill or a crash would end it; it
// returns when the kill was sent.
func (r *Runtime) KillContainer(ctx context.Context, name string) (time.Time, error) {
	_, pid, err := r.RunningContainer(ctx, name, 60*time.Second)
	if err != nil {
		return time.Time{}, err
	}
	at := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		return at, fmt.Errorf("killing the container's process %d: %w", pid, err)
	}
	return at, nil
}
