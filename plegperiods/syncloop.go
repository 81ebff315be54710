package plegperiods

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"github.com/plegvet/plegvet/internal/extract/astobj"
	"github.com/plegvet/plegvet/srcpos"
)

// SyncLoop is the kubelet's loop that consumes PLEG events: a select with
// a case receiving the PLEG's events (syncLoopIteration's plegCh) beside
// periodic ticks. It shows, at the top of the kubelet, the argument the
// relist makes inside the PLEG: events drive reaction, ticks guarantee
// convergence.
type SyncLoop struct {
	Func        string     `json:"func"`        // the function holding the select
	Pos         srcpos.Pos `json:"pos"`         // its declaration
	PLEGCase    srcpos.Pos `json:"plegCase"`    // the case receiving PLEG events
	PLEGChannel string     `json:"plegChannel"` // the channel (parameter) it receives from
	Ticks       []Tick     `json:"ticks"`
}

// Tick is a case of the loop's select that receives from a time channel.
type Tick struct {
	Channel string     `json:"channel"` // the parameter it receives from (syncCh)
	Case    srcpos.Pos `json:"case"`
	// Period is the period of the ticker whose channel the loop's caller
	// passes; nil when the caller was not found.
	Period *Value      `json:"period"`
	Ticker *srcpos.Pos `json:"ticker"` // the time.NewTicker call
}

// isPLEGEvent reports whether t is (a pointer to) the pleg package's
// PodLifecycleEvent.
func isPLEGEvent(t types.Type) bool {
	tn := namedOf(t)
	return tn != nil && tn.Name() == "PodLifecycleEvent" && tn.Pkg() != nil && strings.HasSuffix(tn.Pkg().Path(), "/pkg/kubelet/pleg")
}

// isTimeType reports whether t is package time's type name (Time, Duration).
func isTimeType(t types.Type, name string) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == name && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time"
}

// chanElem returns the element type of a channel type, or nil.
func chanElem(t types.Type) types.Type {
	if t == nil {
		return nil
	}
	if c, ok := t.Underlying().(*types.Chan); ok {
		return c.Elem()
	}
	return nil
}

// SyncLoops finds the functions of a package whose select receives PLEG
// events, with their tick cases and, through their callers, the tickers'
// periods.
func SyncLoops(fset *token.FileSet, files []*ast.File, info *types.Info) []SyncLoop {
	res := newResolver(fset, files, info)
	var out []SyncLoop
	for _, fd := range funcDecls(files) {
		fn, _ := info.Defs[fd.Name].(*types.Func)
		params := paramIndex(info, fd)
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectStmt)
			if !ok {
				return true
			}
			loop := SyncLoop{Func: fd.Name.Name, Pos: srcpos.Of(fset, fd.Name.Pos()), Ticks: []Tick{}}
			type tickCase struct {
				Tick
				index int // of the parameter it receives from; -1: not one
			}
			var ticks []tickCase
			for _, s := range sel.Body.List {
				cc := s.(*ast.CommClause)   // a select's body holds only these
				ch := receivedFrom(cc.Comm) // nil for default
				if ch == nil {
					continue
				}
				elem := chanElem(info.TypeOf(ch))
				id, _ := ast.Unparen(ch).(*ast.Ident)
				switch {
				case elem != nil && isPLEGEvent(elem) && !loop.PLEGCase.IsValid():
					loop.PLEGCase = srcpos.Of(fset, cc.Pos())
					if id != nil {
						loop.PLEGChannel = id.Name
					}
				case elem != nil && isTimeType(elem, "Time") && id != nil:
					i, isParam := params[info.Uses[id]]
					if !isParam {
						i = -1
					}
					ticks = append(ticks, tickCase{Tick{Channel: id.Name, Case: srcpos.Of(fset, cc.Pos())}, i})
				}
			}
			if !loop.PLEGCase.IsValid() {
				return true
			}
			for _, t := range ticks {
				if t.index >= 0 && fn != nil {
					t.Period, t.Ticker = res.tickerPeriod(files, info, fn, t.index)
				}
				loop.Ticks = append(loop.Ticks, t.Tick)
			}
			out = append(out, loop)
			return false
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos.Before(out[j].Pos) })
	return out
}

func receivedFrom(comm ast.Stmt) ast.Expr {
	var x ast.Expr
	switch s := comm.(type) {
	case *ast.ExprStmt:
		x = s.X
	case *ast.AssignStmt:
		if len(s.Rhs) == 1 {
			x = s.Rhs[0]
		}
	}
	if u, ok := ast.Unparen(x).(*ast.UnaryExpr); ok && u.Op == token.ARROW {
		return u.X
	}
	return nil
}

// tickerPeriod finds a call of fn and follows its argument at index (a
// ticker's C) to the time.NewTicker call that made the ticker.
func (r *resolver) tickerPeriod(files []*ast.File, info *types.Info, fn *types.Func, index int) (period *Value, at *srcpos.Pos) {
	for _, fd := range funcDecls(files) {
		ast.Inspect(fd.Body, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || period != nil || astobj.Func(info, call) != fn || index >= len(call.Args) {
				return period == nil
			}
			// syncTicker.C: the ticker variable, then its assignment.
			sel, ok := ast.Unparen(call.Args[index]).(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := ast.Unparen(sel.X).(*ast.Ident)
			if !ok {
				return true
			}
			v, ok := info.Uses[id].(*types.Var)
			if !ok {
				return true
			}
			init, ok := ast.Unparen(lastAssignment(fd.Body, v, call.Pos(), info)).(*ast.CallExpr)
			if !ok || len(init.Args) != 1 {
				return true
			}
			if pkg, name := calleeName(info, init); pkg == "time" && name == "NewTicker" {
				period, at = r.Value(init.Args[0]), srcpos.At(r.Fset, init.Pos())
			}
			return false
		})
		if period != nil {
			break
		}
	}
	return period, at
}

// Files visits the file names of the sync loop's positions (an answer's
// Files).
func (s *SyncLoop) Files(visit srcpos.FileVisitor) {
	if s == nil {
		return
	}
	srcpos.Files(visit, &s.Pos, &s.PLEGCase)
	for i := range s.Ticks {
		t := &s.Ticks[i]
		srcpos.Files(visit, &t.Case)
		t.Period.Files(visit)
		srcpos.Files(visit, t.Ticker)
	}
}
