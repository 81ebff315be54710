package main

import (
	"context"
	"io"
)

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) int { return exitUsage }
