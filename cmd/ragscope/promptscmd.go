package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/internal/app"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/termtext"
	"github.com/ragscope/ragscope/prompts"
)

// promptsCommand is `ragscope prompts`: the judge's prompt templates,
// built in and overridden.
func (c *cli) promptsCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prompts",
		Short: "List, show, export and reset the judge's prompt templates",
		Long:  `The judge's prompts are templates, one per task and language (en, zh). A directory of overrides (--prompts DIR, else the one the interface's editor writes to) replaces the built-in text of the tasks it holds, named <task>.<lang>.tmpl; the run report records each template's sha256.`,
		Example: `ragscope prompts list
ragscope prompts show faithfulness_verdicts --lang zh
ragscope prompts export my-prompts && ragscope run --prompts my-prompts data.jsonl
ragscope prompts reset faithfulness_verdicts`,
		RunE: c.action(func(cmd *cobra.Command, args []string) int { return missingSubcommand(c.stderr, cmd, args) }),
	}
	for _, sub := range []struct{ use, short string }{
		{"list", "Every task and language: source (embedded or override), sha256"},
		{"show TASK", "Print the template a run would use for TASK"},
		{"export DIR", "Write the built-in templates into DIR for editing"},
		{"reset TASK", "Remove the override of TASK (and its draft), so the built-in text is used again"},
	} {
		cmd.AddCommand(c.promptsSubcommand(sub.use, sub.short))
	}
	return cmd
}

func (c *cli) promptsSubcommand(use, short string) *cobra.Command {
	var dir, lang string
	oneTask := exactArgs(1, fmt.Sprintf("give one TASK, one of %v", prompts.Tasks))
	cmd := &cobra.Command{Use: use, Short: short, ValidArgsFunction: completeTasks, Args: oneTask}
	sub := cmd.Name()
	if sub != "export" {
		cmd.Flags().StringVar(&dir, "prompts", os.Getenv("RAGSCOPE_PROMPTS"), "directory of template overrides")
	}
	switch sub {
	case "list":
		cmd.ValidArgsFunction = cobra.NoFileCompletions
		cmd.Args = noArgs("")
	case "show":
		cmd.Flags().StringVar(&lang, "lang", "en", "template language: en or zh")
		completeFlagWords(cmd, "lang", prompts.Langs)
	case "reset":
		cmd.Flags().StringVar(&lang, "lang", "all", "template language: en, zh or all")
		completeFlagWords(cmd, "lang", append(slices.Clone(prompts.Langs), "all"))
	case "export":
		cmd.Args = exactArgs(1, "give one DIR")
		cmd.ValidArgsFunction = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveFilterDirs
		}
	}
	noteEnv(cmd.Flags())
	cmd.RunE = c.action(func(cmd *cobra.Command, pos []string) int {
		return promptsRun(cmd, dir, lang, pos, c.width, c.stdout, c.stderr)
	})
	return cmd
}

func promptsRun(cmd *cobra.Command, dir, lang string, pos []string, width int, stdout, stderr io.Writer) int {
	sub := cmd.Name()
	source := "--prompts"
	if dir == "" {
		if d := app.DefaultPromptsDir(); d != "" {
			source = app.PromptsDirDefault
			if st, err := os.Stat(d); err == nil && st.IsDir() || sub == "reset" {
				dir = d // where the TUI's edits go; `run` loads it too
			}
		}
	}
	switch sub {
	case "list", "show":
		set, problems := prompts.Embedded(), []prompts.Problem(nil)
		if dir != "" {
			var err error
			if set, problems, err = prompts.Scan(dir); err != nil {
				return failed(stderr, "ragscope prompts "+sanitize.Line(sub), exit.Usagef("%s: %v", source, err))
			}
		}
		broken := map[string]prompts.Problem{}
		for _, p := range problems {
			if p.Task != "" {
				broken[p.Task+"."+p.Lang] = p
			}
		}
		if sub == "list" {
			rows := [][]string{{"TASK", "LANG", "SOURCE", "SHA256"}}
			for _, in := range set.List() {
				src, sum := in.Source, in.SHA256
				if in.Path != "" {
					src += " (" + in.Path + ")"
				}
				if p, bad := broken[in.Task+"."+in.Lang]; bad {
					// Not usable: a run with the LLM judge stops on it.
					src, sum = prompts.SourceOverride+" (BROKEN: "+p.Err.Error()+")", "-"
				}
				rows = append(rows, []string{sanitize.Line(in.Task), sanitize.Line(in.Lang), sanitize.Line(src), sanitize.Line(sum)})
			}
			termtext.WriteTable(stdout, width, rows)
			for _, p := range problems {
				if p.Task == "" {
					fmt.Fprintf(stderr, "ragscope prompts list: warning: %s\n", errText(p.Err))
				}
			}
			if len(problems) > 0 {
				fmt.Fprintf(stderr, "ragscope prompts list: %d broken override file(s) in %s (%s); runs with an LLM judge stop on them: fix or delete them, or run `ragscope prompts reset TASK`\n",
					len(problems), sanitize.Line(dir), source)
			}
			return exit.OK
		}
		if err := prompts.CheckTaskLang(pos[0], lang); err != nil {
			return failed(stderr, "ragscope prompts show", exit.UsageError{Err: err})
		}
		if p, bad := broken[pos[0]+"."+lang]; bad {
			fmt.Fprintf(stderr, "ragscope prompts show: the override %s is broken: %s\nfix or delete it, or run `ragscope prompts reset %s --lang %s` to use the built-in template again\n",
				sanitize.Line(p.Path), errText(p.Err), sanitize.Line(pos[0]), sanitize.Line(lang))
			return exit.Fatal
		}
		text, err := set.Source(pos[0], lang)
		if err != nil {
			return failed(stderr, "ragscope prompts show", exit.UsageError{Err: err})
		}
		fmt.Fprint(stdout, text)
		return exit.OK
	case "reset":
		return promptsReset(dir, source, lang, pos[0], stdout, stderr)
	}
	// export
	if err := prompts.Export(pos[0]); err != nil {
		return failed(stderr, "ragscope prompts export", err)
	}
	shown := sanitize.Line(pos[0])
	fmt.Fprintf(stdout, "wrote %d templates to %s; edit them and run with --prompts %s\n", len(prompts.Tasks)*len(prompts.Langs), shown, shown)
	return exit.OK
}

func promptsReset(dir, source, lang, task string, stdout, stderr io.Writer) int {
	langs := []string{lang}
	if lang == "all" {
		langs = prompts.Langs
	}
	for _, l := range langs {
		if err := prompts.CheckTaskLang(task, l); err != nil {
			return failed(stderr, "ragscope prompts reset", exit.Usagef("%v (or --lang all)", err))
		}
	}
	if dir == "" {
		fmt.Fprintln(stderr, "ragscope prompts reset: no override directory: pass --prompts DIR")
		return exit.Usage
	}
	var removed []string
	var err error
	for i := 0; i < len(langs) && err == nil; i++ {
		var r []string
		r, err = prompts.Reset(dir, task, langs[i])
		removed = append(removed, r...)
	}
	for _, p := range removed {
		fmt.Fprintf(stdout, "removed %s\n", sanitize.Line(p))
	}
	if err != nil {
		return failed(stderr, "ragscope prompts reset", err)
	}
	what := task + " (" + strings.Join(langs, ", ") + ")"
	if len(removed) == 0 {
		fmt.Fprintf(stdout, "no override of %s in %s (%s): it already uses the built-in template\n", sanitize.Line(what), sanitize.Line(dir), source)
	} else {
		fmt.Fprintf(stdout, "%s uses the built-in template again\n", sanitize.Line(what))
	}
	return exit.OK
}
