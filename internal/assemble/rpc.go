package assemble

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/plegvet/plegvet/analyzer/pleg"
	"github.com/plegvet/plegvet/answer"
	"github.com/plegvet/plegvet/check/rpcstream"
	"github.com/plegvet/plegvet/criproto"
	"github.com/plegvet/plegvet/internal/analysis/suite"
	"github.com/plegvet/plegvet/internal/extract/gosig"
	"github.com/plegvet/plegvet/internal/load/protofile"
	"github.com/plegvet/plegvet/internal/load/tree"
	"github.com/plegvet/plegvet/plegperiods"
)

// EventStream reads the tree's CRI api.proto (or opts.Proto), finds
// runtime.v1.RuntimeService.GetContainerEvents, and joins it with the
// evented PLEG's calls of it. With opts.Proto and neither Dir nor
// Kubernetes set, it reads the proto alone. A proto that is not a regular
// file, is malformed, or lacks package runtime.v1 or service
// RuntimeService is an error.
func EventStream(ctx context.Context, opts Options) (*answer.RPCReport, error) {
	if opts.Proto != "" && opts.Dir == "" && opts.Kubernetes == "" {
		t := &tree.Tree{Dir: absPath(".")}
		src := answer.Source{Load: answer.Load{Mode: "proto only", Modelled: []string{}, Problems: []string{}}}
		rep, _, err := readStream(t, src, opts.Proto)
		return rep, err
	}
	t, src, err := open(ctx, opts, true)
	if err != nil {
		return nil, err
	}
	rep, pf, err := readStream(t, src, opts.Proto)
	if err != nil {
		return nil, err
	}
	if t.PackageDir(t.Module+"/"+answer.PlegPackage) == "" {
		return rep, nil // no evented PLEG to link
	}
	a, err := analyse(ctx, t, src, isCRIAPIPackage, nil, answer.PlegPackage)
	if err != nil {
		return nil, err
	}
	rep.Source = a.src
	return rep, linkStream(a, rep, pf)
}

// protoUnread is an api.proto that is there but could not be read as the
// CRI API (a syntax error, a duplicate declaration, another package): a
// problem with the tree, not a part it lacks.
type protoUnread struct{ err error }

func (p *protoUnread) Error() string { return p.err.Error() }
func (p *protoUnread) Unwrap() error { return p.err }

// readStream reads the proto: the given file, or the tree's; it returns
// the file read too, for joining with the Go code.
func readStream(t *tree.Tree, src answer.Source, protoFile string) (*answer.RPCReport, *criproto.File, error) {
	if protoFile == "" {
		dir := t.ModuleDir(tree.CRIAPIModule)
		if dir == "" {
			return nil, nil, fmt.Errorf("%s: %w (looked in staging/src/ and vendor/)", src.Dir, ErrNoCRIAPI)
		}
		protoFile = filepath.Join(dir, filepath.FromSlash(criproto.RelativeToRoot))
	}
	// Name the proto as a user types it: relative to the checkout root,
	// or as given when it lies outside the tree.
	display := t.Rel(absPath(protoFile))
	if filepath.IsAbs(filepath.FromSlash(display)) {
		display = filepath.ToSlash(protoFile)
	}
	pf, err := protofile.ReadNamed(protoFile, display)
	if err != nil {
		if _, statErr := os.Lstat(protoFile); statErr == nil {
			return nil, nil, &protoUnread{err}
		}
		return nil, nil, err
	}
	// Not the API the kubelet calls: no rpc of it can be judged.
	if err := pf.CheckRuntimeService(); err != nil {
		return nil, nil, &protoUnread{err}
	}
	rep := &answer.RPCReport{SchemaVersion: answer.SchemaVersion, Source: src, Proto: display, Diagnostics: []answer.Diagnostic{}}
	if ev, ok := pf.FindEvents(); ok {
		rep.RPC = &answer.RPC{
			RPC: ev.RPC, RequestFields: protoFields(ev.Request), ResponseFields: protoFields(ev.Response),
			EventTypes: append([]answer.EventType{}, ev.EventTypes...), GoCalls: []answer.Pos{},
		}
	}
	return rep, pf, nil
}

// linkStream joins the evented PLEG's calls of the stream (the pleg
// analyzer's outcome on the pleg package) with the proto.
func linkStream(a *analysed, rep *answer.RPCReport, pf *criproto.File) error {
	out, err := a.outcome(pleg.Analyzer, answer.PlegPackage)
	if err != nil {
		return err
	}
	var calls []plegperiods.StreamCall
	for _, c := range out.Result.(*pleg.Result).Constructors {
		if c.Kind == plegperiods.Evented {
			calls = append(calls, c.StreamCalls...)
		}
	}
	for i := range calls {
		if w := gosig.WrittenMethod(a.res.Packages, calls[i].Method); w != "" {
			calls[i].Method = w
		}
	}
	rep.Diagnostics = rpcstream.Join(rep, pf, calls)
	return nil
}

// isCRIAPIPackage picks the CRI client API, loaded from source when the
// tree (or the fetched k8s.io/cri-api module) holds it, so the Go method's
// signature is known. The group is made once: suite.Stream parses its
// checks' documentation on each call, and the loader asks about every
// import of every package it reads (a sixth of report -C's CPU on a
// v1.37.2 checkout).
func isCRIAPIPackage(importPath string) bool { return criAPIFromSource()(importPath) }

var criAPIFromSource = sync.OnceValue(func() func(string) bool { return suite.Stream().FromSource })

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

func protoFields(m *criproto.Message) []answer.ProtoField {
	if m == nil {
		return []answer.ProtoField{}
	}
	return append([]answer.ProtoField{}, m.Fields...)
}
