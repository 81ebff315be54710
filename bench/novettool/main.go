// Command novettool is a go vet analysis tool that analyses nothing: the
// floor for plegvet under go vet -vettool (bench item 3). It speaks the
// protocol the go command expects of a vet tool (-V=full, -flags, one
// vet.cfg per package, the facts file written) and does no other work, so
// a go vet run with it costs what go vet costs whatever the tool does:
// compiling the dependencies and starting one process per package.
//
// Usage: go vet -vettool=$(which novettool) PATTERN
package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	args := os.Args[1:]
	for _, a := range args {
		switch {
		case a == "-V=full":
			// The go command keys its cache on this line; the executable's
			// hash makes a rebuilt tool a new one, as the go command does
			// for tools built in devel mode.
			fmt.Printf("novettool version devel buildID=%s\n", selfHash())
			return
		case a == "-flags":
			fmt.Println("[]")
			return
		}
	}
	if len(args) == 0 || !strings.HasSuffix(args[len(args)-1], ".cfg") {
		fmt.Fprintln(os.Stderr, "usage: novettool [flags] VET.cfg (run by go vet -vettool)")
		os.Exit(2)
	}
	cfgFile := args[len(args)-1]
	data, err := os.ReadFile(cfgFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "novettool:", err)
		os.Exit(1)
	}
	var cfg struct{ VetxOutput string }
	if err := json.Unmarshal(data, &cfg); err != nil {
		fmt.Fprintf(os.Stderr, "novettool: %s: %v\n", cfgFile, err)
		os.Exit(1)
	}
	// The go command reads the facts file of every package it vets.
	if cfg.VetxOutput != "" {
		if err := os.WriteFile(cfg.VetxOutput, nil, 0o666); err != nil {
			fmt.Fprintln(os.Stderr, "novettool:", err)
			os.Exit(1)
		}
	}
}

func selfHash() string {
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	f, err := os.Open(exe)
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%x", h.Sum(nil)[:16])
}
