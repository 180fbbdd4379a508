package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/ragscope/ragscope/app"
	"github.com/ragscope/ragscope/prompts"
	"github.com/ragscope/ragscope/sanitize"
)

const promptsUsage = `Usage:
  ragscope prompts list   [--prompts DIR]              task, language, source (embedded/override), sha256
  ragscope prompts show   [--prompts DIR] [--lang en|zh] TASK
  ragscope prompts reset  [--prompts DIR] [--lang en|zh|all] TASK
                                                       remove the override (and its draft) of TASK
                                                       (all languages unless --lang), so the built-in text is used
  ragscope prompts export DIR                          write the embedded templates for editing
`

func cmdPrompts(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, promptsUsage)
		return exitUsage
	}
	sub := args[0]
	fs := flag.NewFlagSet("ragscope prompts "+sub, flag.ContinueOnError)
	fs.SetOutput(flagOutput(stderr))
	dir := fs.String("prompts", os.Getenv("RAGSCOPE_PROMPTS"), "directory of template overrides")
	defLang := "en"
	if sub == "reset" {
		defLang = "all"
	}
	lang := fs.String("lang", defLang, "en or zh (reset: also all)")
	pos, code, ok := parseArgs(fs, args[1:], stderr)
	if !ok {
		return code
	}
	source := "--prompts"
	if *dir == "" {
		if d := app.DefaultPromptsDir(); d != "" {
			source = app.PromptsDirDefault
			if isDir(d) || sub == "reset" {
				*dir = d // where the TUI's edits go; `run` loads it too
			}
		}
	}
	switch sub {
	case "list", "show":
		set, problems := prompts.Embedded(), []prompts.Problem(nil)
		if *dir != "" {
			var err error
			if set, problems, err = prompts.Scan(*dir); err != nil {
				fmt.Fprintf(stderr, "ragscope prompts %s: %s: %s\n", sanitize.Line(sub), source, errText(err))
				return exitUsage
			}
		}
		broken := map[string]prompts.Problem{}
		for _, p := range problems {
			if p.Task != "" {
				broken[p.Task+"."+p.Lang] = p
			}
		}
		if sub == "list" {
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TASK\tLANG\tSOURCE\tSHA256")
			for _, in := range set.List() {
				src, sum := in.Source, in.SHA256
				if in.Path != "" {
					src += " (" + in.Path + ")"
				}
				if p, bad := broken[in.Task+"."+in.Lang]; bad {
					// Not usable: a run with the LLM judge stops on it.
					src, sum = prompts.SourceOverride+" (BROKEN: "+p.Err.Error()+")", "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", sanitize.Line(in.Task), sanitize.Line(in.Lang), sanitize.Line(src), sanitize.Line(sum))
			}
			tw.Flush()
			for _, p := range problems {
				if p.Task == "" {
					fmt.Fprintf(stderr, "ragscope prompts list: warning: %s\n", errText(p.Err))
				}
			}
			if len(problems) > 0 {
				fmt.Fprintf(stderr, "ragscope prompts list: %d broken override file(s) in %s (%s); runs with an LLM judge stop on them: fix or delete them, or run `ragscope prompts reset TASK`\n",
					len(problems), sanitize.Line(*dir), source)
			}
			return exitOK
		}
		if len(pos) != 1 {
			fmt.Fprintf(stderr, "ragscope prompts show: give one TASK, one of %v\n", prompts.Tasks)
			return exitUsage
		}
		if err := prompts.CheckTaskLang(pos[0], *lang); err != nil {
			fmt.Fprintf(stderr, "ragscope prompts show: %s\n", errText(err))
			return exitUsage
		}
		if p, bad := broken[pos[0]+"."+*lang]; bad {
			fmt.Fprintf(stderr, "ragscope prompts show: the override %s is broken: %s\nfix or delete it, or run `ragscope prompts reset %s --lang %s` to use the built-in template again\n",
				sanitize.Line(p.Path), errText(p.Err), sanitize.Line(pos[0]), sanitize.Line(*lang))
			return exitFatal
		}
		text, err := set.Source(pos[0], *lang)
		if err != nil {
			fmt.Fprintf(stderr, "ragscope prompts show: %s\n", errText(err))
			return exitUsage
		}
		fmt.Fprint(stdout, text)
		return exitOK
	case "reset":
		return promptsReset(*dir, source, *lang, pos, stdout, stderr)
	case "export":
		if len(pos) != 1 {
			fmt.Fprintln(stderr, "ragscope prompts export: give one DIR")
			return exitUsage
		}
		if err := prompts.Export(pos[0]); err != nil {
			fmt.Fprintf(stderr, "ragscope prompts export: %s\n", errText(err))
			return exitFatal
		}
		dir := sanitize.Line(pos[0])
		fmt.Fprintf(stdout, "wrote %d templates to %s; edit them and run with --prompts %s\n", len(prompts.Tasks)*len(prompts.Langs), dir, dir)
		return exitOK
	}
	fmt.Fprintf(stderr, "ragscope prompts: unknown command %q\n%s", sub, promptsUsage)
	return exitUsage
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func promptsReset(dir, source, lang string, pos []string, stdout, stderr io.Writer) int {
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "ragscope prompts reset: give one TASK, one of %v\n", prompts.Tasks)
		return exitUsage
	}
	task := pos[0]
	langs := []string{lang}
	if lang == "all" {
		langs = prompts.Langs
	}
	for _, l := range langs {
		if err := prompts.CheckTaskLang(task, l); err != nil {
			fmt.Fprintf(stderr, "ragscope prompts reset: %s (or --lang all)\n", errText(err))
			return exitUsage
		}
	}
	if dir == "" {
		fmt.Fprintln(stderr, "ragscope prompts reset: no override directory: pass --prompts DIR")
		return exitUsage
	}
	var removed []string
	for _, l := range langs {
		r, err := prompts.Reset(dir, task, l)
		removed = append(removed, r...)
		if err != nil {
			for _, p := range removed {
				fmt.Fprintf(stdout, "removed %s\n", sanitize.Line(p))
			}
			fmt.Fprintf(stderr, "ragscope prompts reset: %s\n", errText(err))
			return exitFatal
		}
	}
	for _, p := range removed {
		fmt.Fprintf(stdout, "removed %s\n", sanitize.Line(p))
	}
	what := task + " (" + strings.Join(langs, ", ") + ")"
	if len(removed) == 0 {
		fmt.Fprintf(stdout, "no override of %s in %s (%s): it already uses the built-in template\n", sanitize.Line(what), sanitize.Line(dir), source)
	} else {
		fmt.Fprintf(stdout, "%s uses the built-in template again\n", sanitize.Line(what))
	}
	return exitOK
}
