package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/app"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/serve"
	"github.com/ragscope/ragscope/internal/store"
)

// openCommand is `ragscope open` and `ragscope attach`: a stored run, or
// one being evaluated by another process or the server, live.
func (c *cli) openCommand(name string) *cobra.Command {
	var dbPath, pass string
	var ascii, wait bool
	cmd := &cobra.Command{
		Use:               name + " RUN|latest",
		Short:             "Open a run in the terminal interface: stored, or live while it is evaluated",
		Example:           "ragscope " + name + " latest\nragscope " + name + " 20240101-093000-ab12 --db team.db",
		ValidArgsFunction: completeRunIDs(1),
		Args:              exactArgs(1, oneRun),
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			if wait {
				return c.wait(dbPath, pos[0])
			}
			return c.show(cmd, dbPath, ascii, pass, pos[0])
		}),
	}
	if name == "attach" {
		cmd.Short = "Open a run the server evaluates, live; leaving with q keeps it running"
		cmd.Example += "\nragscope attach --wait \"$(ragscope run --detach data.jsonl --fail-under faithfulness=0.8)\""
		cmd.Flags().BoolVar(&wait, "wait", false, "no interface: wait for the run to end and exit with its exit code (gate included), for scripts")
	}
	dbFlag(cmd.Flags(), &dbPath)
	asciiFlag(cmd.Flags(), &ascii)
	passFlag(cmd.Flags(), &pass)
	noteEnv(cmd.Flags())
	return cmd
}

func (c *cli) show(cmd *cobra.Command, dbPath string, ascii bool, pass, ref string) int {
	name, stderr := cmd.Name(), c.stderr
	levels, err := report.ParseLevels(pass)
	if err != nil {
		return failedAsIs(stderr, "ragscope "+name, exit.UsageError{Err: err})
	}
	if !isTerminal(os.Stdout) || !isTerminal(os.Stdin) {
		return failed(stderr, "ragscope "+name, exit.Usagef("the interface needs a terminal; use 'ragscope report' in scripts"))
	}
	st, err := store.Open(dbPath, store.OpenOptions{Mode: store.Hold, Role: name})
	if err != nil {
		return failedAsIs(stderr, "ragscope "+name, err)
	}
	defer st.Close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	code, err := app.Show(ctx, st, ref, ascii, levels, nil, stderr)
	if err != nil {
		return failedAsIs(stderr, "ragscope "+name, err)
	}
	return code
}

// wait is `ragscope attach --wait RUN`.
func (c *cli) wait(dbPath, ref string) int {
	st, err := store.Open(dbPath, store.OpenOptions{Mode: store.Read, Role: "attach"})
	if err != nil {
		return failedAsIs(c.stderr, "ragscope attach", err)
	}
	defer st.Close()
	ctx, stop := interruptible()
	defer stop()
	code, err := app.WaitRun(ctx, st, ref, c.stderr)
	if err != nil {
		fmt.Fprintf(c.stderr, "ragscope attach: %v\n", err)
		if code == 0 {
			code = exitCode(err)
		}
	}
	return code
}

// serveCommand is `ragscope serve`.
func (c *cli) serveCommand() *cobra.Command {
	var dbPath string
	cmd := &cobra.Command{
		Use:               "serve",
		Short:             "Hold the database and evaluate detached runs until stopped",
		Long:              `Hold the database, serve it to other ragscope processes on a Unix socket beside it (owner only), and evaluate the runs submitted with 'ragscope run --detach' until interrupted. Watch them with 'ragscope attach RUN'.`,
		Example:           "ragscope serve --db /srv/ragscope/team.db",
		ValidArgsFunction: cobra.NoFileCompletions,
		Args:              noArgs(" (the database is given with --db FILE)"),
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			ctx, stop := interruptible()
			defer stop()
			if err := serve.Serve(ctx, dbPath, c.stdout, c.stderr); err != nil {
				return failedAsIs(c.stderr, "ragscope serve", err)
			}
			return exit.OK
		}),
	}
	dbFlag(cmd.Flags(), &dbPath)
	return cmd
}
