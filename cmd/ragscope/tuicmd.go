package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/charmbracelet/x/term"

	"github.com/ragscope/ragscope/app"
)

// cmdOpen is `ragscope open` and `ragscope attach`: a stored run, or one
// being evaluated by another process or the server, live.
func cmdOpen(name string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ragscope "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbPath := fs.String("db", "", "database file")
	ascii := fs.Bool("ascii", os.Getenv("RUNEWIDTH_EASTASIAN") == "1", "ASCII-only interface glyphs")
	pos, code, ok := parseArgs(fs, args, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "ragscope %s: give one RUN id (or latest); see `ragscope runs`\n", name)
		return exitUsage
	}
	if !term.IsTerminal(os.Stdout.Fd()) || !term.IsTerminal(os.Stdin.Fd()) {
		fmt.Fprintf(stderr, "ragscope %s: the interface needs a terminal; use `ragscope report` in scripts\n", name)
		return exitUsage
	}
	st, err := app.Open(*dbPath, app.OpenOptions{Mode: app.Hold, Role: name})
	if err != nil {
		fmt.Fprintf(stderr, "ragscope %s: %v\n", name, err)
		return exitCode(err)
	}
	defer st.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	code, err = app.Show(ctx, st, pos[0], *ascii, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "ragscope %s: %v\n", name, err)
		return exitCode(err)
	}
	return code
}

func cmdServe(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ragscope serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dbPath := fs.String("db", "", "database file")
	if _, code, ok := parseArgs(fs, args, stderr); !ok {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := app.Serve(ctx, *dbPath, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "ragscope serve:", err)
		return exitCode(err)
	}
	return exitOK
}
