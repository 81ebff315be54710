package main

import (
	"context"
	"io"
)

func runNode(ctx context.Context, args []string, stdout, stderr io.Writer) int { return exitUsage }
