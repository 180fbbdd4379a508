// Command ragscope evaluates the answers of retrieval-augmented generation
// systems the way RAGAS does, in a terminal interface or headless.
package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"

	"charm.land/fang/v2"
	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/internal/clidoc"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/termtext"
)

// termWidth is termtext.Width; tests replace it.
var termWidth = termtext.Width

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// cli is one invocation: its arguments, where it writes and the exit code
// its command chose. Every call of run builds a new one and a new command tree, so
// nothing of one call (parsed flags, settings) reaches the next.
type cli struct {
	args           []string
	stdout, stderr io.Writer
	code           int
	width          int // what a table on stdout must fit: the terminal's columns, 0 (no limit) for a pipe
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// Everything said on stderr may quote data (file names, --map values,
	// judge replies, server errors): one sanitiser at the boundary. Stdout
	// is left alone: it carries exact JSON reports; its text outputs
	// sanitise their fields.
	errWidth := termWidth(stderr)
	stderr = sanitize.Writer(stderr)
	if errWidth > 0 {
		// Prose on a terminal wraps between words, not at its last column.
		ww := &termtext.WrapWriter{W: stderr, Width: errWidth}
		defer ww.Flush()
		stderr = ww
	}
	c := &cli{args: args, stdout: stdout, stderr: stderr, width: termWidth(stdout)}
	root := c.rootCommand()
	root.SetArgs(shorthand(root, args))
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	info, _ := debug.ReadBuildInfo()
	err := fang.Execute(context.Background(), root,
		fang.WithVersion(versionText(info)),
		fang.WithErrorHandler(c.reportError),
		// Our own man command writes where the command's output goes.
		fang.WithoutManpage())
	if err != nil {
		return exit.Usage // only cobra's own errors get here: flags and command names
	}
	return c.code
}

// rootCommand is the command tree of one invocation.
func (c *cli) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "ragscope",
		Short: "Score RAG answers for faithfulness, answer relevancy, context precision and context recall",
		Long: `ragscope scores the answers of a retrieval-augmented generation system the way RAGAS does: faithfulness, answer relevancy, context precision and context recall, judged by an LLM behind any OpenAI-compatible endpoint (or by an offline lexical judge when none is configured). Every judge call is cached; every run is stored with the judge's reasons, and opens in a terminal interface.

Given a DATASET instead of a command, ragscope runs it: "ragscope DATASET [flags]" is short for "ragscope run DATASET [flags]".`,
		Example: `# evaluate in the terminal interface (offline judge unless an endpoint is configured)
ragscope testdata/demo.jsonl
# in CI: no interface, the JSON report to a file, exit 3 when samples failed
OPENAI_API_KEY=sk-... ragscope run --headless --out report.json data.jsonl
# list the stored runs, then compare the last two
ragscope runs
ragscope diff RUN_A latest`,
		Args:              cobra.ArbitraryArgs,
		ValidArgsFunction: completeDataset,
		RunE:              c.action(c.rootRun),
	}
	root.Flags().SortFlags = false
	root.PersistentFlags().BoolP("help", "h", false, "show the help of this command")
	_ = root.PersistentFlags().SetAnnotation("help", cobra.FlagSetByCobraAnnotation, []string{"true"})
	root.Flags().BoolP("version", "v", false, "print the version, the commit it was built from and the Go version")
	_ = root.Flags().SetAnnotation("version", cobra.FlagSetByCobraAnnotation, []string{"true"})
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(c.flagError)

	help := c.helpCommand()
	for _, g := range []struct {
		cobra.Group
		cmds []*cobra.Command
	}{
		{cobra.Group{ID: "eval", Title: "evaluate"}, []*cobra.Command{c.runCommand(), c.watchCommand(), c.estimateCommand(), c.checkCommand(), c.calibrateCommand()}},
		{cobra.Group{ID: "runs", Title: "stored and live runs"}, []*cobra.Command{c.openCommand("open"), c.openCommand("attach"), c.runsCommand(), c.reportCommand(), c.diffCommand(), c.agreementCommand(), c.serveCommand()}},
		{cobra.Group{ID: "keep", Title: "database, prompts and shell"}, []*cobra.Command{c.judgeCommand(), c.cacheCommand(), c.dbCommand(), c.labelsCommand(), c.promptsCommand(), c.completionCommand(), c.manCommand(), help}},
	} {
		root.AddGroup(&g.Group)
		for _, sub := range g.cmds {
			sub.GroupID = g.ID
			root.AddCommand(sub)
		}
	}
	root.SetHelpCommand(help)
	clidoc.FlagHelpEverywhere(root)
	return root
}

// rootRun is `ragscope` with no command: the DATASET shorthand was not
// recognised (see shorthand), so the first argument is neither a command
// nor a file.
func (c *cli) rootRun(cmd *cobra.Command, args []string) int {
	if len(args) == 0 {
		return usageHint(c.stderr, cmd, "give a DATASET to evaluate or a command")
	}
	return usageHint(c.stderr, cmd, "unknown command or file %q", args[0])
}

// helpCommand is `ragscope help [command]`.
func (c *cli) helpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Show the help of a command",
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			parent, _, err := cmd.Root().Find(args)
			if err != nil {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, sub := range parent.Commands() {
				if sub.IsAvailableCommand() && strings.HasPrefix(sub.Name(), toComplete) {
					out = append(out, cobra.CompletionWithDesc(sub.Name(), sub.Short))
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: c.action(func(cmd *cobra.Command, args []string) int {
			target, rest, err := cmd.Root().Find(args)
			if err != nil || len(rest) > 0 {
				fmt.Fprintf(c.stderr, "ragscope help: no command %q\n", strings.Join(args, " "))
				fmt.Fprintln(c.stderr, "see 'ragscope --help'")
				return exit.Usage
			}
			if err := target.Help(); err != nil {
				return failed(c.stderr, "ragscope help", err)
			}
			return exit.OK
		}),
	}
}

// action adapts a command body to cobra, after the settings file has
// filled the flags left unset and $OPENAI_API_KEY an unset --api-key. A body reports its own errors and returns
// the exit code in c.code, not as an error: fang would style an error by
// asking the terminal for its background colour, which after a TUI
// session is slow and puts the answer on the wire.
func (c *cli) action(body func(cmd *cobra.Command, args []string) int) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if cmd.Annotations[annotationNoSettings] == "" {
			if err := loadSettings(cmd.Flags()); err != nil {
				c.code = failed(c.stderr, "ragscope", exit.UsageError{Err: err})
				return nil
			}
		}
		// The key's variable is read here, not as the flag's default, which
		// help would show.
		if fl := cmd.Flags().Lookup("api-key"); fl != nil && fl.Value.String() == "" {
			if v := os.Getenv("OPENAI_API_KEY"); v != "" {
				setKeyFrom(cmd.Flags(), v, "OPENAI_API_KEY")
			}
		}
		c.code = body(cmd, args)
		return nil
	}
}

// commandError is an error cobra found in the command line (an unknown
// flag, a bad flag value) for the command it names.
type commandError struct {
	path string
	err  error
}

func (e commandError) Error() string { return e.err.Error() }
func (e commandError) Unwrap() error { return e.err }

// flagError names the command whose flags were wrong, and says so when a
// long flag was given one dash, as ragscope's flags once were (-db FILE).
func (c *cli) flagError(cmd *cobra.Command, err error) error {
	for _, a := range c.args {
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && len(name) > 1 && cmd.Flags().Lookup(name) != nil {
			err = fmt.Errorf("%w (long flags take two dashes: --%s)", err, name)
			break
		}
	}
	return commandError{path: cmd.CommandPath(), err: err}
}

// reportError is fang's error handler: one plain line and where to look,
// whatever stderr is. It writes to the sanitised stderr, not to fang's
// writer, which would strip what the user typed of its escape sequences
// instead of showing them.
func (c *cli) reportError(_ io.Writer, _ fang.Styles, err error) {
	path := "ragscope"
	var ce commandError
	if errors.As(err, &ce) {
		path = ce.path
	}
	fmt.Fprintf(c.stderr, "%s: %s\n", path, errText(err))
	fmt.Fprintf(c.stderr, "see '%s --help'\n", path)
}

// usageHint says a command line was malformed and where its shape is
// explained; it returns the usage exit code.
func usageHint(stderr io.Writer, cmd *cobra.Command, format string, args ...any) int {
	fmt.Fprintf(stderr, "%s: %s\n", cmd.CommandPath(), fmt.Sprintf(format, args...))
	fmt.Fprintf(stderr, "see '%s --help'\n", cmd.CommandPath())
	return exit.Usage
}

// exactArgs is the Args of a command that takes n arguments; hint says
// what to give, as usageHint says it. cobra checks them after the flags,
// so --help still shows the help.
func exactArgs(n int, hint string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return commandError{path: cmd.CommandPath(), err: errors.New(hint)}
		}
		return nil
	}
}

// noArgs is the Args of a command that takes none: the first one given is
// named, more said after it.
func noArgs(more string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) > 0 {
			return commandError{path: cmd.CommandPath(), err: fmt.Errorf("unexpected argument %q%s", args[0], more)}
		}
		return nil
	}
}

// shorthand turns `ragscope DATASET [flags]` and `ragscope --flag ...`
// into `ragscope run ...`, also when the shell asks for completions of
// such a line. A command name always wins over a file of that name.
func shorthand(root *cobra.Command, args []string) []string {
	head, rest := []string{}, args
	if len(rest) > 0 && (rest[0] == cobra.ShellCompRequestCmd || rest[0] == cobra.ShellCompNoDescRequestCmd) {
		head, rest = []string{rest[0]}, rest[1:]
		if len(rest) < 2 {
			return args // still typing the first word: commands and files are offered
		}
	}
	if len(rest) > 0 && !isCommand(root, rest[0]) && !slices.Contains([]string{"-h", "--help", "-v", "--version"}, rest[0]) &&
		(strings.HasPrefix(rest[0], "-") || fileExists(rest[0])) {
		head = append(head, "run")
	}
	return append(head, rest...)
}

// isCommand: name is a sub-command of root.
func isCommand(root *cobra.Command, name string) bool {
	sub, _, err := root.Find([]string{name})
	return err == nil && sub != root
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func exitCode(err error) int {
	var ue exit.UsageError
	if errors.As(err, &ue) {
		return exit.Usage
	}
	return exit.Fatal
}

// versionText is what --version prints: the module version ("(devel)"
// when built without one), the commit and whether the tree had
// uncommitted changes, and the Go that built it.
func versionText(info *debug.BuildInfo) string {
	version, commit, modified := "(devel)", "", false
	if info != nil {
		version = cmp.Or(info.Main.Version, version)
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "ragscope %s\n", version)
	switch {
	case commit == "":
		b.WriteString("commit unknown (built without version control information)\n")
	case modified:
		fmt.Fprintf(&b, "commit %s, with uncommitted changes\n", commit)
	default:
		fmt.Fprintf(&b, "commit %s\n", commit)
	}
	fmt.Fprintf(&b, "built with %s for %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return b.String()
}

// manCommand is `ragscope man`: the manual page, made from the command
// tree, to the command's output (fang's own writes to the process's
// stdout whatever the command was given).
func (c *cli) manCommand() *cobra.Command {
	return &cobra.Command{
		Use:               "man",
		Short:             "Print the manual page (roff), e.g. ragscope man > ragscope.1",
		Example:           "ragscope man | man -l -\nragscope man > ~/.local/share/man/man1/ragscope.1",
		ValidArgsFunction: cobra.NoFileCompletions,
		Args:              noArgs(""),
		RunE: c.action(func(cmd *cobra.Command, args []string) int {
			if _, err := fmt.Fprint(c.stdout, clidoc.ManPage(cmd.Root(), clidoc.ManDate())); err != nil {
				return failed(c.stderr, "ragscope man", err)
			}
			return exit.OK
		}),
	}
}
