package runtimeread

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/plegvet/plegvet/criproto"
	"github.com/plegvet/plegvet/internal/load/protofile"
)

// CRIAPIModule is the module of the CRI API's Go code and api.proto.
const CRIAPIModule = "k8s.io/cri-api"

// APIEvents is whether a version of k8s.io/cri-api declares the event
// stream: a runtime built on one that does not cannot serve it, whatever
// its own code says (its gRPC server answers Unimplemented to a method
// its service descriptor lacks).
type APIEvents struct {
	Version  string
	Declared bool
	// Where is the rpc's declaration (pkg/apis/runtime/v1/api.proto:NNN,
	// relative to the module) when it is declared; otherwise what the
	// module holds instead.
	Where string
}

// EventsInAPI fetches k8s.io/cri-api at version with the go command (as
// Fetch) and reads its CRI v1 api.proto with criproto: whether
// runtime.v1.RuntimeService declares GetContainerEvents. Its errors, and
// timeout, are Fetch's.
func EventsInAPI(ctx context.Context, version string, timeout time.Duration) (APIEvents, error) {
	dir, err := Fetch(ctx, CRIAPIModule, version, timeout)
	if err != nil {
		return APIEvents{}, err
	}
	return eventsInAPIDir(dir, version)
}

func eventsInAPIDir(dir, version string) (APIEvents, error) {
	out := APIEvents{Version: version}
	path := filepath.Join(dir, filepath.FromSlash(criproto.RelativeToRoot))
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		out.Where = fmt.Sprintf("it has no CRI v1 API (no %s)", criproto.RelativeToRoot)
		return out, nil
	}
	f, err := protofile.ReadNamed(path, criproto.RelativeToRoot)
	if err == nil {
		err = f.CheckRuntimeService()
	}
	if err != nil {
		return APIEvents{}, fmt.Errorf("%s@%s: %w", CRIAPIModule, version, err)
	}
	if ev, ok := f.FindEvents(); ok {
		out.Declared = true
		out.Where = fmt.Sprintf("%s:%d", criproto.RelativeToRoot, ev.RPC.Pos.Line)
		return out, nil
	}
	out.Where = fmt.Sprintf("its %s declares %s.%s without %s", criproto.RelativeToRoot, criproto.CRIPackage, criproto.RuntimeService, criproto.EventsRPC)
	return out, nil
}
