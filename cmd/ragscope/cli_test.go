package main

import (
	"bytes"
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

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

// The binary prints what its own build information says, under both
// spellings of the flag.
func TestVersionFlag(t *testing.T) {
	needBinary(t)
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	want := versionText(info) + "\n"
	for _, flag := range []string{"--version", "-v"} {
		r := runBin(t, cleanEnv(t), flag)
		if r.code != exitOK || r.stdout != want || r.stderr != "" {
			t.Errorf("%s: exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", flag, r.code, r.stdout, want, r.stderr)
		}
	}
	if !strings.Contains(want, info.GoVersion) {
		t.Errorf("the version does not name the Go that built it (%s):\n%s", info.GoVersion, want)
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
			if r.code != exitOK || !strings.Contains(r.stdout, tc.want) || !strings.Contains(r.stdout, "__complete") || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q, script lacks %q or the __complete call:\n%.400s", r.code, r.stderr, tc.want, r.stdout)
			}
		})
	}
	r := runInProcess("completion", "tcsh")
	if r.code != exitUsage || !strings.Contains(r.stderr, "give one shell: bash, zsh, fish, powershell") {
		t.Fatalf("unknown shell: exit %d\n%s", r.code, r.stderr)
	}
}

// completions runs the shell's request for the words after `ragscope`
// (the last one being typed) and returns the offered values with their
// descriptions, and the directive.
func completions(t *testing.T, env []string, words ...string) (map[string]string, string, result) {
	t.Helper()
	r := runBin(t, env, append([]string{"__complete"}, words...)...)
	if r.code != exitOK {
		t.Fatalf("__complete %q: exit %d\n%s", words, r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	got := map[string]string{}
	for _, l := range lines[:len(lines)-1] {
		v, desc, _ := strings.Cut(l, "\t")
		got[v] = desc
	}
	return got, lines[len(lines)-1], r
}

func TestCompleteRunIDs(t *testing.T) {
	const older, newer = "20240101-000000-aaaa", "20240301-000000-bbbb"
	db := seedRuns(t, 2, map[string]time.Duration{older: 300 * time.Hour, newer: 100 * time.Hour})
	env := cleanEnv(t)
	both := []string{cache.LatestRun, older, newer}
	for _, tc := range []struct {
		name  string
		words []string
		want  []string
	}{
		{"open", []string{"open", "--db", db, ""}, both},
		{"attach", []string{"attach", "--db", db, ""}, both},
		{"report", []string{"report", "--db", db, ""}, both},
		{"report with a prefix", []string{"report", "--db", db, "202403"}, []string{newer}},
		{"report takes one run", []string{"report", "--db", db, older, ""}, nil},
		{"diff, first run", []string{"diff", "--db", db, ""}, both},
		{"diff, second run", []string{"diff", "--db", db, older, ""}, both},
		{"diff takes two runs", []string{"diff", "--db", db, older, newer, ""}, nil},
		{"runs delete leaves out the runs named", []string{"runs", "delete", "--db", db, older, ""}, []string{cache.LatestRun, newer}},
		{"run --resume", []string{"run", "--db", db, "--resume", ""}, both},
		{"shorthand --resume", []string{"--db", db, "--resume", ""}, both},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, directive, _ := completions(t, env, tc.words...)
			var keys []string
			for k := range got {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(keys, want) || directive != ":4" {
				t.Fatalf("offered %q with directive %s, want %q with :4 (no file names)", keys, directive, want)
			}
			for id, desc := range got {
				if id != cache.LatestRun && !strings.Contains(desc, "finished") {
					t.Errorf("%s is described as %q, want its dataset, start and state", id, desc)
				}
			}
			if d, ok := got[cache.LatestRun]; ok && !strings.Contains(d, newer) {
				t.Errorf("latest is described as %q, want the newest run's id", d)
			}
		})
	}
}

// A database that is missing, or locked by a process that does not serve
// it, gives no completions and no error, quickly.
func TestCompleteRunIDsWithoutTheDatabase(t *testing.T) {
	db := seedRuns(t, 1, map[string]time.Duration{"20240101-000000-aaaa": time.Hour})
	held, err := cache.Open(db, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	missing := filepath.Join(t.TempDir(), "none.db")
	for name, dbPath := range map[string]string{"held by another process": db, "missing": missing} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			got, directive, r := completions(t, cleanEnv(t), "open", "--db", dbPath, "")
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("completion took %s", took)
			}
			if len(got) != 0 || directive != ":4" {
				t.Fatalf("offered %v with directive %s, want nothing", got, directive)
			}
			if strings.Contains(r.stderr, "database") || strings.Contains(r.stderr, "rror") {
				t.Fatalf("the shell was told of the failure:\n%s", r.stderr)
			}
		})
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("completing created the missing database")
	}
}

func TestCompleteFlagValuesAndFiles(t *testing.T) {
	env := cleanEnv(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name      string
		words     []string
		want      []string
		directive string
	}{
		{"--metrics after one", []string{"run", "--metrics", "faithfulness,context_"}, []string{"faithfulness,context_precision", "faithfulness,context_recall", "faithfulness,context_utilization", "faithfulness,context_entity_recall"}, ":6"},
		{"--metrics from nothing", []string{"run", "--metrics", "a"}, []string{"all", "answer_correctness", "answer_relevancy", "answer_similarity"}, ":6"},
		{"--lang", []string{"run", "--lang", ""}, []string{"auto", "en", "zh"}, ":4"},
		{"--response-format", []string{"check", "--response-format", "json"}, []string{"json_schema", "json_object"}, ":4"},
		{"report --format", []string{"report", "--format", ""}, []string{"json", "csv", "md", "github", "jsonl"}, ":4"},
		{"run --format", []string{"run", "--format", ""}, []string{"json", "github", "jsonl"}, ":4"},
		{"prompts show TASK", []string{"prompts", "show", "faithfulness"}, []string{"faithfulness_statements", "faithfulness_verdicts"}, ":4"},
		{"prompts reset --lang", []string{"prompts", "reset", "--lang", ""}, []string{"en", "zh", "all"}, ":4"},
		{"run DATASET: file names", []string{"run", ""}, nil, ":0"},
		{"shorthand DATASET: commands and file names", []string{"ru"}, []string{"run", "runs"}, ":0"},
		{"after the DATASET: no more files", []string{"run", filepath.Join(dir, "d.jsonl"), ""}, nil, ":4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, directive, _ := completions(t, env, tc.words...)
			var keys []string
			for k := range got {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			want := slices.Clone(tc.want)
			slices.Sort(want)
			if !slices.Equal(keys, want) || directive != tc.directive {
				t.Fatalf("offered %q with directive %s, want %q with %s", keys, directive, want, tc.directive)
			}
		})
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
			if r.code != exitOK || r.stderr != "" {
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
		for _, name := range g.flags {
			if fs.Lookup(name) == nil {
				t.Errorf("group %q lists %s, which run does not have", g.title, name)
			}
			if other, dup := seen[name]; dup {
				t.Errorf("%s is in groups %q and %q", name, other, g.title)
			}
			seen[name] = g.title
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
		at := strings.Index(help, "\n  "+strings.ToUpper(g.title))
		if at < last {
			t.Errorf("heading %q missing or out of order", g.title)
		}
		last = at
		for _, name := range g.flags {
			if n := strings.Count(help, "--"+name+" "); n < 1 {
				t.Errorf("--%s is not listed under %q", name, g.title)
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
	if r.code != exitOK || r.stderr != "" {
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

// A malformed command line is named, with where to read about it, in a
// few plain lines: not the whole flag list, never escape sequences.
func TestUsageErrorsHint(t *testing.T) {
	demo := repoFile("testdata/demo.jsonl")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"unknown flag", []string{"runs", "--bogus"}, []string{"ragscope runs: unknown flag: --bogus", "see 'ragscope runs --help'"}},
		{"unknown flag of run", []string{"run", "--headles", demo}, []string{"unknown flag: --headles", "see 'ragscope run --help'"}},
		{"one dash", []string{"run", "-db", "x.db", demo}, []string{"long flags take two dashes: --db", "see 'ragscope run --help'"}},
		{"one dash, shorthand", []string{demo, "-headless"}, []string{"long flags take two dashes: --headless"}},
		{"bad value", []string{"run", "--concurrency", "many", demo}, []string{`invalid argument "many" for "--concurrency"`, "see 'ragscope run --help'"}},
		{"bad size", []string{"run", "--max-reply-bytes", "lots", demo}, []string{`"lots" is not a size`}},
		{"unknown cache command", []string{"cache", "shrink"}, []string{`ragscope cache: unknown command "shrink"`, "see 'ragscope cache --help'"}},
		{"cache alone", []string{"cache"}, []string{"ragscope cache: give a command: clear, compact, export, import, stats"}},
		{"unknown prompts command", []string{"prompts", "edit"}, []string{`unknown command "edit"`, "see 'ragscope prompts --help'"}},
		{"unknown help topic", []string{"help", "frobnicate"}, []string{`ragscope help: no command "frobnicate"`}},
		{"no arguments", nil, []string{"give a DATASET to evaluate or a command", "see 'ragscope --help'"}},
		{"extra argument", []string{"runs", "list"}, []string{`ragscope runs: unknown command "list"`}},
		{"report without a run", []string{"report"}, []string{"give one RUN id", "see 'ragscope report --help'"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runBin(t, cleanEnv(t), tc.args...)
			if r.code != exitUsage {
				t.Fatalf("exit %d, want %d\n%s", r.code, exitUsage, r.stderr)
			}
			for _, want := range tc.want {
				if !strings.Contains(r.stderr, want) {
					t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
				}
			}
			if n := strings.Count(r.stderr, "\n"); n > 3 || strings.Contains(r.stderr, "\x1b") {
				t.Errorf("want a few plain lines, got %d:\n%q", n, r.stderr)
			}
		})
	}
}

// `ragscope DATASET [flags]` is `ragscope run DATASET [flags]`, with the
// flags before or after the dataset.
func TestDatasetShorthand(t *testing.T) {
	demo := repoFile("testdata/demo.jsonl")
	for _, args := range [][]string{
		{demo, "--headless"},
		{"--headless", demo},
		{"run", demo, "--headless", "--metrics", "faithfulness"},
	} {
		r := runBin(t, cleanEnv(t), args...)
		if r.code != exitOK {
			t.Fatalf("%q: exit %d\n%s", args, r.code, r.stderr)
		}
		if rep := decodeReport(t, r.stdout); len(rep.Samples) == 0 {
			t.Fatalf("%q: empty report", args)
		}
	}
}

// Flag, then environment variable, then settings file, then the built-in
// default.
func TestSettingPrecedence(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	data := smallDataset(t, 1)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.json")
	if err := os.WriteFile(cfg, []byte(fmt.Sprintf(`{"base_url": %q, "model": "from-file", "concurrency": 3}`, srv.BaseURL())), 0o600); err != nil {
		t.Fatal(err)
	}
	baseOnly := filepath.Join(dir, "empty.json")
	if err := os.WriteFile(baseOnly, []byte(fmt.Sprintf(`{"base_url": %q}`, srv.BaseURL())), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		env         []string
		args        []string
		model, conc string
	}{
		{"default", []string{"RAGSCOPE_CONFIG=" + baseOnly}, nil, "gpt-4o-mini", "16"},
		{"file", []string{"RAGSCOPE_CONFIG=" + cfg}, nil, "from-file", "3"},
		{"environment over file", []string{"RAGSCOPE_CONFIG=" + cfg, "RAGSCOPE_MODEL=from-env"}, nil, "from-env", "3"},
		{"flag over environment and file", []string{"RAGSCOPE_CONFIG=" + cfg, "RAGSCOPE_MODEL=from-env"}, []string{"--model", "from-flag", "--concurrency", "5"}, "from-flag", "5"},
		{"--config over RAGSCOPE_CONFIG", []string{"RAGSCOPE_CONFIG=" + baseOnly}, []string{"--config", cfg}, "from-file", "3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := cleanEnv(t, append(tc.env, "OPENAI_API_KEY=k")...)
			args := append(append([]string{"run", "--headless", "--metrics", "faithfulness", "--db", filepath.Join(t.TempDir(), "r.db")}, tc.args...), data)
			r := runBin(t, env, args...)
			if r.code != exitOK {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			rep := decodeReport(t, r.stdout)
			if rep.Run.Judge.Model != tc.model || rep.Run.Config["concurrency"] != tc.conc {
				t.Fatalf("model %q, concurrency %v; want %q, %s", rep.Run.Judge.Model, rep.Run.Config["concurrency"], tc.model, tc.conc)
			}
		})
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
			if r.code != exitOK {
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
