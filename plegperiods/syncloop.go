package plegperiods

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"github.com/plegvet/plegvet/internal/astobj"
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
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == "PodLifecycleEvent" && n.Obj().Pkg() != nil && strings.HasSuffix(n.Obj().Pkg().Path(), "/pkg/kubelet/pleg")
}

func isTime(t types.Type) bool {
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.Obj().Name() == "Time" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "time"
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
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			fn, _ := info.Defs[fd.Name].(*types.Func)
			params := paramIndex(info, fd)
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectStmt)
				if !ok {
					return true
				}
				loop := SyncLoop{Func: fd.Name.Name, Pos: srcpos.Of(fset, fd.Name.Pos()), Ticks: []Tick{}}
				var ticks []struct {
					tick  Tick
					index int
				}
				for _, s := range sel.Body.List {
					cc, ok := s.(*ast.CommClause)
					if !ok || cc.Comm == nil {
						continue
					}
					ch := receivedFrom(cc.Comm)
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
					case elem != nil && isTime(elem) && id != nil:
						i, isParam := params[info.Uses[id]]
						if !isParam {
							i = -1
						}
						ticks = append(ticks, struct {
							tick  Tick
							index int
						}{Tick{Channel: id.Name, Case: srcpos.Of(fset, cc.Pos())}, i})
					}
				}
				if !loop.PLEGCase.IsValid() {
					return true
				}
				for _, t := range ticks {
					if t.index >= 0 && fn != nil {
						t.tick.Period, t.tick.Ticker = res.tickerPeriod(files, info, fn, t.index)
					}
					loop.Ticks = append(loop.Ticks, t.tick)
				}
				out = append(out, loop)
				return false
			})
		}
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
func (r *resolver) tickerPeriod(files []*ast.File, info *types.Info, fn *types.Func, index int) (*Value, *srcpos.Pos) {
	var period *Value
	var at *srcpos.Pos
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if period != nil {
				return false
			}
			fd, ok := n.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				return true
			}
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
					period, at = r.value(init.Args[0]), srcpos.At(r.fset, init.Pos())
				}
				return false
			})
			return false
		})
	}
	return period, at
}
