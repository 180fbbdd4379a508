package main

import (
	"cmp"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/holder"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/prompts"
)

// Shell completion. cobra keeps flag completion functions in a package
// map keyed by the flag; every call of run defines new flags, so no call
// sees another's (the old entries are only memory, in tests).

// completionWait bounds how long completing a run id waits for a database
// locked by a process that does not serve it: the shell is waiting.
const completionWait = 300 * time.Millisecond

// completeDataset offers file names for the DATASET argument.
func completeDataset(_ *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveDefault
}

// completeRunIDs offers the stored runs' ids for the first n arguments
// (every argument when n < 0), each described by its dataset, start and
// state. The database is read the way `ragscope runs` reads it; when it
// is missing, damaged or locked the shell gets no completions and no error.
func completeRunIDs(n int) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		if n >= 0 && len(args) >= n {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		exclude := args
		if n == 2 {
			exclude = nil // diff may compare a run with itself
		}
		return runIDCompletions(cmd, exclude, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

func runIDCompletions(cmd *cobra.Command, exclude []string, toComplete string) []cobra.Completion {
	if loadSettings(cmd.Flags()) != nil {
		return nil
	}
	dbPath, _ := cmd.Flags().GetString("db") // "" for a command without it
	db, runs, live, err := storedRunList(dbPath, store.OpenOptions{Wait: completionWait})
	if err != nil {
		return nil
	}
	defer db.Close()
	var out []cobra.Completion
	if strings.HasPrefix(cache.LatestRun, toComplete) && len(runs) > 0 {
		out = append(out, cobra.CompletionWithDesc(cache.LatestRun, "the newest run, "+sanitize.Line(runs[0].ID)))
	}
	for _, r := range runs {
		// An id the terminal could not show as it is cannot be typed either.
		if !strings.HasPrefix(r.ID, toComplete) || slices.Contains(exclude, r.ID) || sanitize.Line(r.ID) != r.ID {
			continue
		}
		out = append(out, cobra.CompletionWithDesc(r.ID, runDescription(r, live)))
	}
	return out
}

// runDescription is a run in a few words: its dataset, when it started,
// its state.
func runDescription(r report.RunInfo, live map[string]holder.LiveRun) string {
	dataset := r.Dataset
	if dataset != "" {
		dataset = filepath.Base(dataset)
	}
	return fmt.Sprintf("%s, %s, %s", sanitize.Line(cmp.Or(dataset, "(none)")), r.StartedAt.Local().Format("2006-01-02 15:04"), runState(r, live))
}

// registerRunCompletions completes the values of run's and check's flags.
func registerRunCompletions(cmd *cobra.Command) {
	_ = cmd.RegisterFlagCompletionFunc("metrics", completeMetrics)
	completeFlagWords(cmd, "lang", []string{"auto", "en", "zh"})
	completeFlagWords(cmd, "response-format", []string{"json_schema", "json_object", "text"})
	completeFlagWords(cmd, "reasoning", []string{"auto", "off", "on"})
	completeFlagWords(cmd, "fc-mode", []string{eval.FCModeF1, eval.FCModePrecision, eval.FCModeRecall})
	completeFlagWords(cmd, "ns-mode", []string{eval.NSModeRelevant, eval.NSModeIrrelevant})
	completeFlagWords(cmd, "history-support", []string{string(eval.HistoryChunks), string(eval.HistoryConversation), string(eval.HistoryNone)})
	completeFlagWords(cmd, "api-type", []string{"openai", "azure"})
	completeFlagWords(cmd, "embedding-format", []string{"float", "base64"})
	completeFlagWords(cmd, "format", []string{runreport.FormatJSON, runreport.FormatGitHub, runreport.FormatJSONL, runreport.FormatHTML})
	_ = cmd.MarkFlagFilename("junit", "xml")
	_ = cmd.RegisterFlagCompletionFunc("resume", completeRunIDs(-1))
	_ = cmd.MarkFlagDirname("prompts")
}

// completeFlagWords completes a flag's value from a fixed list.
func completeFlagWords(cmd *cobra.Command, flag string, words []string) {
	_ = cmd.RegisterFlagCompletionFunc(flag, func(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return withPrefix(words, toComplete), cobra.ShellCompDirectiveNoFileComp
	})
}

// withPrefix is the words that start with what is typed so far.
func withPrefix(words []string, prefix string) []cobra.Completion {
	return slices.DeleteFunc(slices.Clone(words), func(w string) bool { return !strings.HasPrefix(w, prefix) })
}

// completeMetrics completes the comma-separated list of --metrics: the
// metrics not named yet, after what is already typed.
func completeMetrics(_ *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	done, last := "", toComplete
	if i := strings.LastIndexByte(toComplete, ','); i >= 0 {
		done, last = toComplete[:i+1], toComplete[i+1:]
	}
	named := strings.Split(done, ",")
	var out []cobra.Completion
	if done == "" && strings.HasPrefix("all", last) {
		out = append(out, "all")
	}
	for _, m := range eval.AllMetrics {
		if strings.HasPrefix(string(m), last) && !slices.Contains(named, string(m)) {
			out = append(out, done+string(m))
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeTasks offers the prompt tasks for `prompts show` and `reset`.
func completeTasks(_ *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return withPrefix(prompts.Tasks, toComplete), cobra.ShellCompDirectiveNoFileComp
}

// completionCommand is `ragscope completion SHELL`.
func (c *cli) completionCommand() *cobra.Command {
	shells := []string{"bash", "zsh", "fish", "powershell"}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script: commands, flags, run ids, flag values",
		Long:  `Print the script that teaches SHELL to complete ragscope's command lines: commands, flags, file names for DATASET, flag values (--metrics, --lang, --format ...), prompt tasks, and the ids of the stored runs (for open, attach, report, diff, runs delete and --resume), read from --db or the default database. Load it in the current shell, or install it for every new one.`,
		Example: `# bash (needs the bash-completion package)
source <(ragscope completion bash)
ragscope completion bash > ~/.local/share/bash-completion/completions/ragscope
# zsh: a directory on $fpath, before compinit runs
ragscope completion zsh > "${fpath[1]}/_ragscope"
# fish
ragscope completion fish > ~/.config/fish/completions/ragscope.fish`,
		ValidArgs: shells,
		RunE: c.action(func(cmd *cobra.Command, args []string) int {
			if len(args) != 1 || !slices.Contains(shells, args[0]) {
				return usageHint(c.stderr, cmd, "give one shell: %s", strings.Join(shells, ", "))
			}
			root := cmd.Root()
			generate := map[string]func(io.Writer) error{
				"bash":       func(w io.Writer) error { return root.GenBashCompletionV2(w, true) },
				"zsh":        root.GenZshCompletion,
				"fish":       func(w io.Writer) error { return root.GenFishCompletion(w, true) },
				"powershell": root.GenPowerShellCompletionWithDesc,
			}
			if err := generate[args[0]](c.stdout); err != nil {
				return failed(c.stderr, "ragscope completion", err)
			}
			return exit.OK
		}),
	}
}
