// Command ayoayo serves the Ayoayo API and offers the engine's tools on the
// command line: perft, analysis, AI matches, the puzzle generator and bulk
// validation of game records.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	m := &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	os.Exit(m.Run(ctx, os.Args[1:]))
}
