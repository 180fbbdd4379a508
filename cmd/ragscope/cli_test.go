package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/ragscope/ragscope/internal/exit"
)

type result struct {
	code   int
	stdout string
	stderr string
}

// repoFile is a path relative to the repository root.
func repoFile(p string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", p)
}

// runInProcess calls the command line's entry point as main does.
func runInProcess(args ...string) result {
	var so, se bytes.Buffer
	code := run(args, strings.NewReader(""), &so, &se)
	return result{code, so.String(), se.String()}
}

func TestVersionText(t *testing.T) {
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want []string
	}{
		{"release with a clean tree", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789abcdef0123456789abcdef01234567"}, {Key: "vcs.modified", Value: "false"}}},
			[]string{"ragscope v1.2.3", "commit 0123456789abcdef0123456789abcdef01234567\n"}},
		{"uncommitted changes", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260101000000-0123456789ab+dirty"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "0123456789ab"}, {Key: "vcs.modified", Value: "true"}}},
			[]string{"ragscope v0.0.0-20260101000000-0123456789ab+dirty", "commit 0123456789ab, with uncommitted changes"}},
		{"no module version, no vcs", &debug.BuildInfo{}, []string{"ragscope (devel)", "commit unknown"}},
		{"no build information", nil, []string{"ragscope (devel)", "commit unknown"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := versionText(tc.info)
			for _, want := range append(tc.want, "built with "+runtime.Version()) {
				if !strings.Contains(got, want) {
					t.Errorf("version text lacks %q:\n%s", want, got)
				}
			}
		})
	}
}

// --version and -v print versionText of the build information.
func TestVersionFlag(t *testing.T) {
	info, _ := debug.ReadBuildInfo()
	want := versionText(info) + "\n"
	for _, flag := range []string{"--version", "-v"} {
		r := runInProcess(flag)
		if r.code != exit.OK || r.stdout != want || r.stderr != "" {
			t.Errorf("%s: exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", flag, r.code, r.stdout, want, r.stderr)
		}
	}
}

func TestCompletionScripts(t *testing.T) {
	for _, tc := range []struct{ shell, want string }{
		{"bash", "__start_ragscope"},
		{"zsh", "#compdef ragscope"},
		{"fish", "complete -c ragscope"},
		{"powershell", "Register-ArgumentCompleter"},
	} {
		t.Run(tc.shell, func(t *testing.T) {
			r := runInProcess("completion", tc.shell)
			if r.code != exit.OK || !strings.Contains(r.stdout, tc.want) || !strings.Contains(r.stdout, "__complete") || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q, script lacks %q or the __complete call:\n%.400s", r.code, r.stderr, tc.want, r.stdout)
			}
		})
	}
	r := runInProcess("completion", "tcsh")
	if r.code != exit.Usage || !strings.Contains(r.stderr, "give one shell: bash, zsh, fish, powershell") {
		t.Fatalf("unknown shell: exit %d\n%s", r.code, r.stderr)
	}
}

func TestHelpExitsZero(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--help"}, []string{"ragscope [command]", "EVALUATE", "run DATASET", "cache", "prompts", "completion"}},
		{[]string{"-h"}, []string{"ragscope [command]"}},
		{[]string{"help"}, []string{"ragscope [command]"}},
		{[]string{"run", "--help"}, []string{"ragscope run DATASET", "JUDGE", "DATASET", "CACHE & STORE", "OUTPUT & INTERFACE", "--base-url", "[$OPENAI_BASE_URL]", "[$RAGSCOPE_CONFIG]"}},
		{[]string{"check", "--help"}, []string{"ragscope check", "JUDGE", "--model"}},
		{[]string{"cache", "--help"}, []string{"ragscope cache", "stats", "compact", "clear", "export", "import"}},
		{[]string{"help", "cache"}, []string{"ragscope cache", "stats", "compact"}},
		{[]string{"cache", "clear", "--help"}, []string{"ragscope cache clear", "--older-than", "--db"}},
		{[]string{"prompts", "--help"}, []string{"ragscope prompts", "list", "show TASK", "export DIR", "reset TASK"}},
		{[]string{"db", "--help"}, []string{"ragscope db", "check", "salvage"}},
		{[]string{"runs", "delete", "--help"}, []string{"ragscope runs delete RUN...", "--dry-run"}},
		{[]string{"report", "--help"}, []string{"ragscope report RUN|latest", "--format"}},
		{[]string{"completion", "--help"}, []string{"ragscope completion", "source <(ragscope completion bash)"}},
		{[]string{repoFile("testdata/demo.jsonl"), "--help"}, []string{"ragscope run DATASET", "JUDGE"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runInProcess(tc.args...)
			if r.code != exit.OK || r.stderr != "" {
				t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
			}
			for _, want := range tc.want {
				if !strings.Contains(r.stdout, want) {
					t.Errorf("help lacks %q:\n%s", want, r.stdout)
				}
			}
			if strings.Contains(r.stdout, "\x1b") {
				t.Errorf("help to a non-terminal has escape sequences:\n%q", r.stdout)
			}
		})
	}
}

// run's help lists its flags under the headings, in order, each once.
func TestRunHelpGroupsEveryFlag(t *testing.T) {
	var f runFlags
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	addRunFlags(&f, fs)
	seen := map[string]string{}
	for _, g := range runFlagGroups {
		for _, name := range g.Flags {
			if fs.Lookup(name) == nil {
				t.Errorf("group %q lists %s, which run does not have", g.Title, name)
			}
			if other, dup := seen[name]; dup {
				t.Errorf("%s is in groups %q and %q", name, other, g.Title)
			}
			seen[name] = g.Title
		}
	}
	fs.VisitAll(func(fl *pflag.Flag) {
		if _, ok := seen[fl.Name]; !ok {
			t.Errorf("--%s is in no group of run's help", fl.Name)
		}
	})

	help := runInProcess("run", "--help").stdout
	last := -1
	for _, g := range runFlagGroups {
		at := strings.Index(help, "\n  "+strings.ToUpper(g.Title))
		if at < last {
			t.Errorf("heading %q missing or out of order", g.Title)
		}
		last = at
		for _, name := range g.Flags {
			if n := strings.Count(help, "--"+name+" "); n < 1 {
				t.Errorf("--%s is not listed under %q", name, g.Title)
			}
		}
	}
}

// TestManPage: the title line names the page and the manual, not the
// one-line description (man crowded it into the page's header), and every
// flag has its value name (--db FILE, --concurrency N).
func TestManPage(t *testing.T) {
	t.Setenv("SOURCE_DATE_EPOCH", "1767225600")
	r := runInProcess("man")
	if r.code != exit.OK || r.stderr != "" {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if first, _, _ := strings.Cut(r.stdout, "\n"); first != `.TH RAGSCOPE 1 "2026-01-01" "ragscope" "User Commands"` {
		t.Fatalf("title line %q", first)
	}
	for _, want := range []string{".SH NAME", `ragscope \- Score RAG answers`, ".SH DESCRIPTION", ".SH OPTIONS", `\fB\-h\fR, \fB\-\-help\fR`,
		`.SS "ragscope run DATASET"`, `.SS "ragscope cache clear"`, `.SS "ragscope prompts list"`, `.SS "ragscope diff RUN_A RUN_B"`, `.SS "ragscope completion`,
		`\fB\-\-db\fR \fIFILE\fR`, `\fB\-\-concurrency\fR \fIN\fR`, `\fB\-\-base\-url\fR \fIURL\fR`, `\fB\-\-request\-timeout\fR \fIDURATION\fR`,
		`\fB\-\-resume\fR \fIRUN\fR`, `\fB\-\-fail\-under\fR \fIMETRIC=X\fR`, "OPENAI_BASE_URL"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the man page lacks %q", want)
		}
	}
	// A switch takes no value.
	if strings.Contains(r.stdout, `\fB\-\-headless\fR \fI`) {
		t.Error("--headless is given a value name")
	}
	for i, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, ".") && !regexp.MustCompile(`^\.(TH|SH|SS|PP|TP|RS|RE|nf|fi|ad|B|RI)( |$)`).MatchString(l) {
			t.Errorf("line %d is an unknown request or unguarded text: %q", i+1, l)
		}
	}
}

func TestShorthand(t *testing.T) {
	demo := repoFile("testdata/demo.jsonl")
	root := (&cli{}).rootCommand()
	for _, tc := range []struct{ args, want []string }{
		{nil, []string{}},
		{[]string{demo}, []string{"run", demo}},
		{[]string{demo, "--headless"}, []string{"run", demo, "--headless"}},
		{[]string{"--headless", demo}, []string{"run", "--headless", demo}},
		{[]string{"runs"}, []string{"runs"}},
		{[]string{"doctor"}, []string{"doctor"}},
		{[]string{"help", "cache"}, []string{"help", "cache"}},
		{[]string{"--help"}, []string{"--help"}},
		{[]string{"-v"}, []string{"-v"}},
		{[]string{"no-such-file.jsonl"}, []string{"no-such-file.jsonl"}},
		{[]string{"__complete", "--db", "x", "--resume", ""}, []string{"__complete", "run", "--db", "x", "--resume", ""}},
		{[]string{"__complete", demo, ""}, []string{"__complete", "run", demo, ""}},
		{[]string{"__complete", "ru"}, []string{"__complete", "ru"}},
		{[]string{"__complete", "open", ""}, []string{"__complete", "open", ""}},
	} {
		in := slices.Clone(tc.args)
		if got := shorthand(root, tc.args); !slices.Equal(got, tc.want) {
			t.Errorf("shorthand(%q) = %q, want %q", tc.args, got, tc.want)
		}
		if !slices.Equal(in, tc.args) {
			t.Errorf("shorthand changed its argument %q to %q", in, tc.args)
		}
	}
}

// Each environment variable the help names is the flag's default, except
// the key, which is read after parsing and never shown, and the settings
// file's, which names the file to read.
func TestEnvironmentVariablesOfFlags(t *testing.T) {
	const secret = "sk-env-SECRET-0123456789"
	for flag, env := range flagEnv {
		value := "from-env-" + flag
		if flag == "ascii" {
			value = "1"
		}
		if flag == "api-key" {
			value = secret
		}
		t.Setenv(env, value)
	}
	var f runFlags
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	addRunFlags(&f, fs)
	for flag, env := range flagEnv {
		fl := fs.Lookup(flag)
		if fl == nil {
			t.Errorf("flagEnv names --%s, which run does not have", flag)
			continue
		}
		if !strings.Contains(fl.Usage, "[$"+env) {
			t.Errorf("the help of --%s does not name %s: %q", flag, env, fl.Usage)
		}
		switch want := os.Getenv(env); flag {
		case "api-key", "config":
			if fl.DefValue != "" {
				t.Errorf("--%s takes its default %q from %s", flag, fl.DefValue, env)
			}
		case "ascii":
			if fl.DefValue != "true" {
				t.Errorf("--ascii default %q with %s=1", fl.DefValue, env)
			}
		default:
			if fl.DefValue != want {
				t.Errorf("--%s default %q, want %q from %s", flag, fl.DefValue, want, env)
			}
		}
	}
	if r := runInProcess("run", "--help"); strings.Contains(r.stdout+r.stderr, secret) {
		t.Fatal("run --help shows the API key from the environment")
	}
}

// TestFlagHelpKeepsItsWords: every command's help shows a flag's words as
// written, its first letter capitalised at most (fang's list title-cased
// the first word: Openai-Compatible, Api key, Comma-Separated).
func TestFlagHelpKeepsItsWords(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"watch", "--help"}, []string{"OpenAI-compatible API base URL", "API key; prefer", "Comma-separated", "ASCII-only interface glyphs"}},
		{[]string{"open", "--help"}, []string{"ASCII-only interface glyphs"}},
		{[]string{"attach", "--help"}, []string{"ASCII-only interface glyphs"}},
		{[]string{"run", "--help"}, []string{"OpenAI-compatible API base URL", "API key; prefer"}},
		{[]string{"check", "--help"}, []string{"OpenAI-compatible API base URL", "API key; prefer"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			r := runInProcess(tc.args...)
			if r.code != exit.OK {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			out := strings.Join(strings.Fields(r.stdout), " ")
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("help lacks %q:\n%s", w, r.stdout)
				}
			}
			for _, bad := range []string{"Openai-Compatible", "Api key", "Comma-Separated", "Ascii-Only"} {
				if strings.Contains(out, bad) {
					t.Errorf("help says %q", bad)
				}
			}
		})
	}
}
