package tui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// clipboardText is what a command would put on the clipboard: the text of
// Bubble Tea's (unexported) OSC 52 message, "" if the command does not set
// the clipboard.
func clipboardText(t *testing.T, cmd tea.Cmd) (string, bool) {
	t.Helper()
	if cmd == nil {
		return "", false
	}
	msg := cmd()
	if fmt.Sprintf("%T", msg) != "tea.setClipboardMsg" {
		return "", false
	}
	return reflect.ValueOf(msg).String(), true
}

func sampleJSON(t *testing.T, r *eval.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := report.WriteSampleJSON(&b, r, report.Levels{}); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

const rawText = "== call 1 of 2  key k0a\n   chat faithfulness_statements\n   [user]\n     问题：纳税人识别号会变吗？"

func TestCopy(t *testing.T) {
	big := strings.Repeat("x", maxClipboard+1)
	tests := []struct {
		name       string
		raw        string // what the cache holds for the raw view
		rawJSON    string // the same calls as stored, when the host gives them
		keys       []string
		want       func(t *testing.T) string // the clipboard text; nil: nothing copied
		wantStatus string
	}{
		{name: "the selected row's sample, as the report writes it", keys: []string{"j", "y"},
			want:       func(t *testing.T) string { return sampleJSON(t, fixtureResults()[1]) },
			wantStatus: "copied sample 1 as JSON ("},
		{name: "the open sample", keys: []string{"enter", "y"},
			want:       func(t *testing.T) string { return sampleJSON(t, fixtureResults()[0]) },
			wantStatus: "copied sample 0 as JSON"},
		{name: "the raw calls, as read", raw: rawText, keys: []string{"enter", "x", "y"},
			want:       func(*testing.T) string { return rawText },
			wantStatus: "copied the raw judge calls of sample 0 (" + byteSize(len(rawText)) + ")"},
		{name: "the raw calls, as stored", raw: rawText, rawJSON: `[{"key":"k1","cached":true}]`, keys: []string{"enter", "x", "y"},
			want:       func(*testing.T) string { return `[{"key":"k1","cached":true}]` },
			wantStatus: "copied the raw judge calls of sample 0 as JSON ("},
		{name: "too large for OSC 52", raw: big, keys: []string{"enter", "x", "y"},
			wantStatus: "the raw judge calls of sample 0 is 100.0 KB, too large to copy through the terminal (OSC 52 is cut short past 100.0 KB); press o to open it in $PAGER"},
		{name: "a sample without judge calls", keys: []string{"j", "enter", "x", "y"},
			wantStatus: "No judge calls were recorded for this sample"},
		{name: "not in the prompt list", keys: []string{"p", "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := hostOptions(fixtureHost())
			opts.RawCalls = func([]string) (string, error) { return tt.raw, nil }
			if tt.rawJSON != "" {
				opts.RawCallsJSON = func([]string) ([]byte, error) { return []byte(tt.rawJSON), nil }
			}
			m := newTestModel(t, opts, 80, 24)
			for _, k := range tt.keys[:len(tt.keys)-1] {
				pressDrive(t, m, k)
			}
			got, copied := clipboardText(t, press(m, tt.keys[len(tt.keys)-1]))
			switch {
			case tt.want == nil && copied:
				t.Fatalf("copied %d bytes, want a refusal", len(got))
			case tt.want != nil && got != tt.want(t):
				t.Fatalf("clipboard\n%s\nwant\n%s", got, tt.want(t))
			}
			if s := flat(screenText(m)); !strings.Contains(s, flat(tt.wantStatus)) {
				t.Fatalf("status misses %q:\n%s", tt.wantStatus, screenText(m))
			}
		})
	}
}

func TestCopyRefusesARunningSample(t *testing.T) {
	m := newTestModel(t, Options{Live: true, Started: fixedStart}, 80, 24)
	m.Update(EventsMsg{Events: []eval.Event{{Kind: eval.EventSampleStarted, Sample: 4}}})
	if _, copied := clipboardText(t, press(m, "y")); copied {
		t.Fatal("a sample still being evaluated was copied")
	}
	if s := flat(screenText(m)); !strings.Contains(s, "sample 4 is still being evaluated") {
		t.Fatalf("no reason given:\n%s", screenText(m))
	}
}

// runExec stands in for tea.ExecProcess and really runs the command, as
// the program would once it has handed over the terminal; seen is the
// file the pager was given, checked while the pager runs.
type runExec struct {
	t    *testing.T
	seen []string
}

func (e *runExec) exec(c *execCmd, cb tea.ExecCallback) tea.Cmd {
	path := c.Args[len(c.Args)-1]
	e.seen = append(e.seen, path)
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		e.t.Errorf("the pager's file: %v, mode %v, want 0600", err, st.Mode().Perm())
	}
	return func() tea.Msg { return cb(c.Run()) }
}

// fakePager writes a pager script that copies the file it is given to
// out and exits with code.
func fakePager(t *testing.T, dir string, code int) (script, out string) {
	out = filepath.Join(dir, "paged")
	script = filepath.Join(dir, "pager.sh")
	body := fmt.Sprintf("#!/bin/sh\ncat \"$1\" > %q\nexit %d\n", out, code)
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	return script, out
}

func TestPager(t *testing.T) {
	hostile := "reply \x1b]52;c;aGk=\x07 and \u202e done"
	tests := []struct {
		name       string
		pager      func(t *testing.T, dir string) (env, out string) // $PAGER and the file it writes
		path       string                                           // $PATH, when set
		raw        string
		keys       []string
		want       string   // what the pager shows
		wantHas    []string // or lines it shows, in order
		wantStatus string
	}{
		{name: "the detail page, as read", keys: []string{"enter", "o"},
			pager: func(t *testing.T, dir string) (string, string) { return fakePager(t, dir, 0) },
			wantHas: []string{"sample 0 (id taxpayer-id)", "Retrieved chunks (2)", "2 judge calls (1 from the cache); x shows them raw",
				"1 faithfulness", "1 of 3 statements supported = 0.333"}},
		{name: "the sample in the table", keys: []string{"o"},
			pager: func(t *testing.T, dir string) (string, string) { return fakePager(t, dir, 0) },
			want:  sanitize.Text(sampleJSON(t, fixtureResults()[0]))},
		{name: "the raw calls, sanitised", raw: hostile, keys: []string{"enter", "x", "o"},
			pager: func(t *testing.T, dir string) (string, string) { return fakePager(t, dir, 0) },
			want:  sanitize.Text(hostile)},
		{name: "the pager fails", raw: rawText, keys: []string{"enter", "x", "o"},
			pager:      func(t *testing.T, dir string) (string, string) { return fakePager(t, dir, 3) },
			want:       rawText,
			wantStatus: "the pager failed: exit status 3"},
		{name: "$PAGER not installed", keys: []string{"o"},
			pager:      func(*testing.T, string) (string, string) { return "no-such-pager -R", "" },
			wantStatus: "cannot open the pager: $PAGER=no-such-pager -R: no-such-pager not found in PATH; set $PAGER to an installed pager"},
		{name: "no $PAGER and no less", keys: []string{"o"}, path: "empty",
			pager:      func(*testing.T, string) (string, string) { return "", "" },
			wantStatus: "cannot open the pager: no pager: less is not installed; set $PAGER to the pager you use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, tmp := t.TempDir(), t.TempDir()
			env, out := tt.pager(t, dir)
			t.Setenv("PAGER", env)
			t.Setenv("TMPDIR", tmp)
			if tt.path != "" {
				t.Setenv("PATH", t.TempDir())
			}
			opts := fixtureOptions()
			opts.RawCalls = func([]string) (string, error) { return tt.raw, nil }
			m := newTestModel(t, opts, 80, 24)
			rec := &runExec{t: t}
			m.exec = rec.exec
			pressDrive(t, m, tt.keys...)
			switch {
			case tt.want != "":
				b, err := os.ReadFile(out)
				if err != nil || string(b) != tt.want {
					t.Fatalf("the pager showed %q (%v), want %q", b, err, tt.want)
				}
			case tt.wantHas != nil:
				b, err := os.ReadFile(out)
				page := string(b)
				if err != nil || strings.Contains(page, `"question":`) || strings.Contains(page, "\x1b") {
					t.Fatalf("the pager showed the JSON, or styles, not the page (%v):\n%s", err, page)
				}
				at := 0
				for _, w := range tt.wantHas {
					i := strings.Index(page[at:], w)
					if i < 0 {
						t.Fatalf("the page lacks %q after byte %d:\n%s", w, at, page)
					}
					at += i + len(w)
				}
			case len(rec.seen) != 0:
				t.Fatalf("a pager ran: %v", rec.seen)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Fatalf("temporary files left behind: %v", left)
			}
			s := flat(screenText(m))
			if tt.wantStatus != "" && !strings.Contains(s, flat(tt.wantStatus)) {
				t.Fatalf("status misses %q:\n%s", tt.wantStatus, screenText(m))
			}
			if m.screen == screenTable && !strings.Contains(s, "diagnosis") {
				t.Fatalf("the table is not back after the pager:\n%s", screenText(m))
			}
		})
	}
}

func TestPagerCommand(t *testing.T) {
	tests := []struct {
		name    string
		pager   string
		have    []string // binaries on PATH
		want    []string
		wantErr string
	}{
		{"$PAGER with arguments goes through sh", "less -R", []string{"sh", "less"},
			[]string{"/bin/sh", "-c", `less -R "$@"`, "less -R", "/t/f.json"}, ""},
		{"no shell splits the words", "most -s", []string{"most"}, []string{"/bin/most", "-s", "/t/f.json"}, ""},
		{"a variable assignment is the shell's", "LESS=R less", []string{"sh"},
			[]string{"/bin/sh", "-c", `LESS=R less "$@"`, "LESS=R less", "/t/f.json"}, ""},
		{"$PAGER missing", "bat", []string{"sh", "less"}, nil, "$PAGER=bat: bat not found in PATH"},
		{"less by default", "  ", []string{"sh", "less"}, []string{"/bin/less", "/t/f.json"}, ""},
		{"nothing", "", []string{"sh"}, nil, "no pager: less is not installed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := pagerCommand("/t/f.json", func(string) string { return tt.pager }, func(f string) (string, error) {
				for _, h := range tt.have {
					if h == f {
						return "/bin/" + f, nil
					}
				}
				return "", os.ErrNotExist
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Args, tt.want) || c.Path != tt.want[0] {
				t.Fatalf("command %q (path %s), want %q", c.Args, c.Path, tt.want)
			}
		})
	}
}

// The pager runs without the judge's key, or any other secret in the
// environment; what it needs (PATH, HOME, the locale) it keeps.
func TestPagerGetsNoSecrets(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "env")
	script := filepath.Join(dir, "pager.sh")
	if err := os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\nenv > %q\n", out)), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PAGER", script)
	t.Setenv("TMPDIR", t.TempDir())
	t.Setenv("OPENAI_API_KEY", "sk-secret-0123456789")
	t.Setenv("DEEPSEEK_KEY", "sk-secret-profile")
	t.Setenv("ZHIPU_AK", "sk-secret-named-otherwise")
	t.Setenv("LANG", "zh_CN.UTF-8")
	opts := fixtureOptions()
	opts.KeyVar = "ZHIPU_AK" // a profile's api_key_env
	m := newTestModel(t, opts, 80, 24)
	rec := &runExec{t: t}
	m.exec = rec.exec
	pressDrive(t, m, "o")
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	env := string(b)
	if strings.Contains(env, "sk-secret") || !strings.Contains(env, "LANG=zh_CN.UTF-8") || !strings.Contains(env, "PATH=") {
		t.Fatalf("the pager's environment:\n%s", env)
	}
}
