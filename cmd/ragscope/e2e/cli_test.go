package e2e

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

// The binary prints what its own build information says, under both
// spellings of the flag: its module version, its commit and whether the
// tree was modified, and the Go that built it.
func TestVersionFlag(t *testing.T) {
	needBinary(t)
	info, err := buildinfo.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	version, vcs := "(devel)", map[string]string{}
	if info.Main.Version != "" {
		version = info.Main.Version
	}
	for _, s := range info.Settings {
		vcs[s.Key] = s.Value
	}
	commit := "commit unknown (built without version control information)"
	switch rev := vcs["vcs.revision"]; {
	case rev != "" && vcs["vcs.modified"] == "true":
		commit = "commit " + rev + ", with uncommitted changes"
	case rev != "":
		commit = "commit " + rev
	}
	want := fmt.Sprintf("ragscope %s\n%s\nbuilt with %s for %s/%s\n", version, commit, info.GoVersion, runtime.GOOS, runtime.GOARCH)
	for _, flag := range []string{"--version", "-v"} {
		r := runBin(t, cleanEnv(t), flag)
		if r.code != exitOK || r.stdout != want || r.stderr != "" {
			t.Errorf("%s: exit %d\nstdout:\n%s\nwant:\n%s\nstderr: %s", flag, r.code, r.stdout, want, r.stderr)
		}
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
		{"report --format", []string{"report", "--format", ""}, []string{"json", "csv", "md", "github", "jsonl", "html"}, ":4"},
		{"run --format", []string{"run", "--format", ""}, []string{"json", "github", "jsonl", "html"}, ":4"},
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
