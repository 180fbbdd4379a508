package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/ragscope/ragscope/app"
	"github.com/ragscope/ragscope/prompts"
	"github.com/ragscope/ragscope/sanitize"
)

const promptsUsage = `Usage:
  ragscope prompts list   [--prompts DIR]              task, language, source (embedded/override), sha256
  ragscope prompts show   [--prompts DIR] [--lang en|zh] TASK
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
	lang := fs.String("lang", "en", "en or zh")
	pos, code, ok := parseArgs(fs, args[1:], stderr)
	if !ok {
		return code
	}
	if *dir == "" {
		if d := app.DefaultPromptsDir(); d != "" && isDir(d) {
			*dir = d // where the TUI's edits go; `run` loads it too
		}
	}
	switch sub {
	case "list", "show":
		set, err := app.LoadPrompts(*dir)
		if err != nil {
			fmt.Fprintf(stderr, "ragscope prompts %s: %s\n", sanitize.Line(sub), errText(err))
			return exitUsage
		}
		if sub == "list" {
			tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TASK\tLANG\tSOURCE\tSHA256")
			for _, in := range set.List() {
				src := in.Source
				if in.Path != "" {
					src += " (" + in.Path + ")"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", sanitize.Line(in.Task), sanitize.Line(in.Lang), sanitize.Line(src), sanitize.Line(in.SHA256))
			}
			tw.Flush()
			return exitOK
		}
		if len(pos) != 1 {
			fmt.Fprintf(stderr, "ragscope prompts show: give one TASK, one of %v\n", prompts.Tasks)
			return exitUsage
		}
		text, err := set.Source(pos[0], *lang)
		if err != nil {
			fmt.Fprintf(stderr, "ragscope prompts show: %s\n", errText(err))
			return exitUsage
		}
		fmt.Fprint(stdout, text)
		return exitOK
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
