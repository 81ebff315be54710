// Command lspbench measures plegvet lsp on a checkout: the time from
// opening a file to its first diagnostics, then from each of N edits of
// another file (or the same) to the diagnostics that follow, and the
// server's resident memory after each, read from /proc.
//
//	go build -o /tmp/plegvet ./cmd/plegvet
//	go run ./bench/lspbench -plegvet /tmp/plegvet -C CHECKOUT \
//	    -open pkg/kubelet/pleg/evented.go -edit pkg/kubelet/pleg/evented.go -n 20
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/sourcegraph/jsonrpc2"
)

type rwc struct {
	io.Reader
	io.WriteCloser
}

func uri(p string) string { return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String() }

func main() {
	bin := flag.String("plegvet", "plegvet", "the plegvet binary")
	dir := flag.String("C", ".", "the checkout")
	open := flag.String("open", "pkg/kubelet/pleg/evented.go", "the file opened (its diagnostics are awaited)")
	edit := flag.String("edit", "", "the file edited, opened too (default: -open)")
	n := flag.Int("n", 10, "edits")
	serverFlags := flag.String("flags", "-pleg.note", "plegvet lsp's flags (the gate-note finds something in any tree: the analysis is not idle)")
	verbose := flag.Bool("v", false, "print every edit's figures, not only the first and last")
	flag.Parse()
	root, _ := filepath.Abs(*dir)
	if *edit == "" {
		*edit = *open
	}
	cmd := exec.Command(*bin, append([]string{"lsp"}, strings.Fields(*serverFlags)...)...)
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	published := make(chan string, 1000)
	diagnostics := map[string]int{} // by URI, the last count published (read after a wait)
	conn := jsonrpc2.NewConn(context.Background(), jsonrpc2.NewBufferedStream(rwc{out, in}, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(func(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Method == "textDocument/publishDiagnostics" {
				var p struct {
					URI         string            `json:"uri"`
					Version     *int              `json:"version"`
					Diagnostics []json.RawMessage `json:"diagnostics"`
				}
				_ = json.Unmarshal(*req.Params, &p)
				v := -1
				if p.Version != nil {
					v = *p.Version
				}
				diagnostics[p.URI] = len(p.Diagnostics)
				published <- fmt.Sprintf("%s@%d", p.URI, v)
			}
			if req.Method == "window/logMessage" {
				fmt.Fprintf(os.Stderr, "server: %s\n", *req.Params)
			}
			return nil, nil
		}))
	ctx := context.Background()
	var res any
	if err := conn.Call(ctx, "initialize", map[string]any{"rootUri": uri(root)}, &res); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	_ = conn.Notify(ctx, "initialized", struct{}{})
	wait := func(want string) time.Duration {
		start := time.Now()
		for p := range published {
			if p == want {
				break
			}
		}
		return time.Since(start)
	}
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return string(b)
	}
	openURI, editURI := uri(filepath.Join(root, *open)), uri(filepath.Join(root, *edit))
	start := time.Now()
	_ = conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": openURI, "languageId": "go", "version": 1, "text": read(*open)}})
	wait(openURI + "@1")
	fmt.Printf("first diagnostics: %.2f s, RSS %d MiB, %d diagnostics in %s\n", time.Since(start).Seconds(), rss(cmd.Process.Pid), diagnostics[openURI], *open)
	text := read(*edit)
	if editURI != openURI {
		_ = conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": editURI, "languageId": "go", "version": 1, "text": text}})
		wait(editURI + "@1")
	}
	var took []float64
	firstRSS := 0
	for i := 0; i < *n; i++ {
		v := i + 2
		text += "\n// edit " + strconv.Itoa(i)
		t0 := time.Now()
		_ = conn.Notify(ctx, "textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": editURI, "version": v}, "contentChanges": []any{map[string]any{"text": text}}})
		// The edited file's diagnostics come in the same batch as the
		// open one's, after the one analysis of the edit.
		wait(editURI + "@" + strconv.Itoa(v))
		took = append(took, time.Since(t0).Seconds())
		m := rss(cmd.Process.Pid)
		if i == 0 {
			firstRSS = m
		}
		if *verbose || i == 0 || i == *n-1 {
			fmt.Printf("edit %d: %.2f s, RSS %d MiB\n", i+1, took[len(took)-1], m)
		}
	}
	sort.Float64s(took)
	if len(took) > 0 {
		fmt.Printf("edits: median %.2f s, max %.2f s; RSS after the first %d MiB, after the last %d MiB; %d diagnostics in %s\n", took[len(took)/2], took[len(took)-1], firstRSS, rss(cmd.Process.Pid), diagnostics[openURI], *open)
	}
	_ = conn.Call(ctx, "shutdown", nil, nil)
	_ = conn.Notify(ctx, "exit", nil)
	_ = cmd.Wait()
}

// rss is a process's resident set in MiB, from /proc; 0 elsewhere.
func rss(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return kb / 1024
		}
	}
	return 0
}
