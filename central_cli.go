package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// standaloneCommands need no data directory, settings or log file: the
// fleet's central administration and the block verifier.
var standaloneCommands = map[string]func(ctx context.Context, args []string, stdout io.Writer) error{
	"verify": func(_ context.Context, args []string, stdout io.Writer) error { return cmdVerify(args, stdout) },
}

// runStandalone runs one of standaloneCommands and turns its error into an
// exit status as run does.
func runStandalone(cmd string, fn func(context.Context, []string, io.Writer) error, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := fn(ctx, args, stdout)
	var usageErr usageError
	switch {
	case errors.As(err, &usageErr):
		fmt.Fprintf(stderr, "starfortune %s: %v\n", cmd, err)
		return 2
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "starfortune %s: %v\n", cmd, err)
		return 1
	}
	return 0
}
