// Command ragscope evaluates the answers of retrieval-augmented generation
// systems the way RAGAS does, in a terminal interface or headless.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ragscope/ragscope/app"
	"github.com/ragscope/ragscope/sanitize"
)

const usage = `ragscope — evaluate RAG answers (faithfulness, answer relevancy, context precision, context recall)

Usage:
  ragscope DATASET [flags]            same as: ragscope run DATASET
  ragscope run [flags] DATASET        evaluate (TUI; --headless for CI)
  ragscope run --detach [flags] DATASET  submit the run to "ragscope serve" and exit
  ragscope open RUN|latest            open a run in the TUI: stored, or live while it is evaluated
  ragscope attach RUN|latest          the same, for a run the server evaluates (q leaves it running)
  ragscope serve [--db FILE]          hold the database and evaluate detached runs until stopped
  ragscope check [judge flags]        try the judge endpoint: reachable, key, json_schema, n, embeddings
  ragscope runs [--db FILE]           list stored runs (running, interrupted, finished)
  ragscope runs delete RUN...|prune --older-than 30d [--keep N] [--dry-run]
  ragscope report RUN|latest [--format json|csv|md] [--out FILE]
  ragscope diff RUN_A RUN_B [--json]  per-sample changes and the change of each metric's mean
  ragscope cache stats|compact|clear|export FILE|import FILE
  ragscope db check|salvage [--db FILE] [--out NEW]  check a damaged database; copy what is readable into NEW
  ragscope prompts list|show TASK|export DIR|reset TASK
  ragscope calibrate [--datasets DIR] measure the offline judge on public datasets

Run 'ragscope run --help' for the evaluation flags.
`

// Exit codes.
const (
	exitOK          = app.ExitOK
	exitFatal       = app.ExitFatal
	exitUsage       = app.ExitUsage
	exitFailures    = app.ExitFailures
	exitInterrupted = app.ExitInterrupted
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Everything said on stderr may quote data (file names, --map values,
	// judge replies, server errors): one sanitiser at the boundary. Stdout
	// is left alone: it carries exact JSON reports; its text outputs
	// sanitise their fields.
	stderr = sanitize.Writer(stderr)
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "-h", "--help", "help":
		fmt.Fprint(stdout, usage)
		return exitOK
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "open", "attach":
		return cmdOpen(args[0], args[1:], stdout, stderr)
	case "serve":
		return cmdServe(args[1:], stdout, stderr)
	case "check", "doctor":
		return cmdCheck(args[1:], stdout, stderr)
	case "diff":
		return cmdDiff(args[1:], stdout, stderr)
	case "runs":
		return cmdRuns(args[1:], stdout, stderr)
	case "report":
		return cmdReport(args[1:], stdout, stderr)
	case "cache":
		return cmdCache(args[1:], stdout, stderr)
	case "db":
		return cmdDB(args[1:], stdout, stderr)
	case "prompts":
		return cmdPrompts(args[1:], stdout, stderr)
	case "calibrate":
		return runCalibrate(args[1:], stdout, stderr)
	}
	if strings.HasPrefix(args[0], "-") || fileExists(args[0]) {
		return cmdRun(args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "ragscope: unknown command or file %q\n\n%s", args[0], usage)
	return exitUsage
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// usageError marks errors caused by the user's flags or input.
type usageError = app.UsageError

func errorf(format string, args ...any) error { return usageError{Err: fmt.Errorf(format, args...)} }

func exitCode(err error) int {
	var ue usageError
	if errors.As(err, &ue) {
		return exitUsage
	}
	return exitFatal
}
