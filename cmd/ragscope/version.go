package main

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/internal/clidoc"
)

// versionText is what --version prints: the module version ("(devel)"
// when built without one), the commit and whether the tree had
// uncommitted changes, and the Go that built it.
func versionText(info *debug.BuildInfo) string {
	version, commit, modified := "(devel)", "", false
	if info != nil {
		if info.Main.Version != "" {
			version = info.Main.Version
		}
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
		RunE: c.action(func(cmd *cobra.Command, args []string) int {
			if len(args) > 0 {
				return usageHint(c.stderr, cmd, "unexpected argument %q", args[0])
			}
			if _, err := fmt.Fprint(c.stdout, clidoc.ManPage(cmd.Root(), clidoc.ManDate())); err != nil {
				fmt.Fprintln(c.stderr, "ragscope man:", errText(err))
				return exitFatal
			}
			return exitOK
		}),
	}
}
