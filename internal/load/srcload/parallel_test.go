package srcload

import (
	"go/parser"
	"go/token"
	"sync"
	"testing"
	"time"
)

// Parsing on every CPU gives the positions a parse in order gives.
func TestParseAllPositionsAsInOrder(t *testing.T) {
	const mode = parser.ParseComments | parser.SkipObjectResolution
	sources := []source{
		{filename: "a.go", name: "a.go", src: []byte("package p\n\nvar A = 1\n"), mode: mode},
		{filename: "empty.go", name: "empty.go", src: nil, mode: mode},
		{filename: "b.go", name: "b.go", src: []byte("package p\n\nfunc B() {\n\treturn\n}\n"), mode: mode},
		{filename: "broken.go", name: "broken.go", src: []byte("package p\n\nvar = \n"), mode: mode},
		{filename: "c.go", name: "c.go", src: []byte("package p\n\ntype C struct{ X int }\n"), mode: mode},
	}
	for _, before := range []int{0, 1, 4096} {
		inOrder := token.NewFileSet()
		l := &loader{fset: token.NewFileSet()}
		if before > 0 {
			inOrder.AddFile("earlier.go", -1, before)
			l.fset.AddFile("earlier.go", -1, before)
		}
		got := l.parseAll(sources)
		for i, s := range sources {
			want, wantErr := parser.ParseFile(inOrder, s.filename, s.src, mode)
			if (wantErr == nil) != (got[i].err == nil) {
				t.Fatalf("%s: error %v, in order %v", s.filename, got[i].err, wantErr)
			}
			if want.Package != got[i].file.Package || want.FileEnd != got[i].file.FileEnd {
				t.Errorf("%s after %d bytes: package clause at %d, file end %d; in order %d, %d", s.filename, before, got[i].file.Package, got[i].file.FileEnd, want.Package, want.FileEnd)
			}
			if p, q := l.fset.Position(got[i].file.End()), inOrder.Position(want.End()); p != q {
				t.Errorf("%s: end %v, in order %v", s.filename, p, q)
			}
		}
		if l.fset.Base() != inOrder.Base() {
			t.Errorf("after %d bytes: next base %d, in order %d", before, l.fset.Base(), inOrder.Base())
		}
	}
}

// A slot given back goes to urgent work expected (prefetch's reads)
// before other work (parses), whichever waited first: one slot, a parse
// holding it, a parse and a read waiting; the read runs next. Both
// orders, twenty times each: which of two waiters a slot would wake is
// otherwise the scheduler's.
func TestCPUSlotsUrgentFirst(t *testing.T) {
	for range 20 {
		urgentFirst(t, true)
		urgentFirst(t, false)
	}
}

func urgentFirst(t *testing.T, parseWaitsFirst bool) {
	t.Helper()
	s := &cpuSlots{free: 1}
	s.cond = sync.NewCond(&s.mu)
	s.take(false) // a parse holds the slot
	order := make(chan string, 2)
	waiting := func(n int) { // until n takers wait on the slot
		for range 5000 {
			s.mu.Lock()
			w := s.waiters
			s.mu.Unlock()
			if w == n {
				return
			}
			time.Sleep(time.Millisecond)
		}
		t.Fatalf("%d takers never waited", n)
	}
	parse := func() { s.take(false); order <- "parse"; s.give() }
	read := func() { s.take(true); order <- "read"; s.give() }
	if parseWaitsFirst {
		go parse()
		waiting(1)
		s.expect()
		go read()
	} else {
		s.expect()
		go read()
		waiting(1)
		go parse()
	}
	waiting(2)
	s.give()
	if first, second := <-order, <-order; first != "read" || second != "parse" {
		t.Fatalf("the parse waiting first: %v; the slot went to the %s, then the %s; want the read first", parseWaitsFirst, first, second)
	}
}
