package tui

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/prompts"
)

// Hostile text, as a dataset, a judge reply or a file name may carry it.
const (
	osc52 = "\x1b]52;c;aGVsbG8=\x07" // writes the clipboard
	csi   = "\x1b[2J\x1b[31m"        // clears the screen, turns red
	rlo   = "\u202e"                 // right-to-left override
	zwsp  = "\u200b"                 // zero-width space
)

// hostileResults is a finished run whose every text field carries control
// characters, escape sequences, bidi controls or invisible characters.
func hostileResults() []*eval.Result {
	all := func() (map[eval.Metric]*float64, map[eval.Metric]eval.Status) {
		return map[eval.Metric]*float64{eval.Faithfulness: score(0.5), eval.ContextPrecision: score(1), eval.ContextRecall: score(1)},
			map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK, eval.AnswerRelevancy: eval.StatusJudgeError,
				eval.ContextPrecision: eval.StatusOK, eval.ContextRecall: eval.StatusOK}
	}
	s, st := all()
	hostile := &eval.Result{
		Index: 0, ID: "id" + osc52 + rlo,
		Question:  "Who" + csi + " wrote" + rlo + "txt.exe" + zwsp + " it?\nline two",
		Answer:    "Alice\x1b[0m wrote it\u009b2J in 1999.\x00 Bob\u2066 helped.",
		Contexts:  []string{"Alice wrote it" + osc52 + " in 1999.\rOVERWRITE", "chunk\ttwo\x7f\u200d"},
		Reference: "Alice\u202d wrote it.",
		Scores:    s, Status: st,
		Errors: map[eval.Metric]string{eval.AnswerRelevancy: "judge reply: \x1b[5mblink\x1b[0m"},
		Faithfulness: &eval.FaithfulnessTrace{Supported: 1, Statements: []eval.StatementVerdict{
			{Statement: "Alice wrote it" + rlo + ".", Verdict: 1, Reason: "the context says so" + "\x1b]0;pwned\x07"},
			{Statement: "Bob\x1b[8m helped.", Verdict: 0, Reason: "not in the context\ufeff"},
		}},
		ContextPrecision: &eval.ContextPrecisionTrace{
			Chunks:     []eval.ChunkVerdict{{Rank: 1, Verdict: 1, Reason: "names the author\u009d52;c;eA==\u009c"}, {Rank: 2, Verdict: 0, Reason: "unrelated" + zwsp}},
			Precisions: []float64{1, 0.5},
		},
		ContextRecall: &eval.ContextRecallTrace{Attributed: 1, Classifications: []eval.Classification{
			{Statement: "Alice" + rlo + " wrote it.", Attributed: 1, Reason: "first chunk\u2067"},
		}},
		Calls: []eval.CallRecord{
			{Task: "faithfulness_statements", Key: "k1"},
			{Task: "answer_relevancy_question", Key: "k2", Error: "HTTP 500: \x1b]8;;http://evil\x07link\x1b]8;;\x07"},
		},
	}
	s2, st2 := all()
	plain := &eval.Result{Index: 1, ID: "plain", Question: "When was the Eiffel Tower completed?", Answer: "In 1889.",
		Contexts: []string{"The Eiffel Tower was completed in 1889."}, Scores: s2, Status: st2}
	return []*eval.Result{hostile, plain}
}

func hostileOptions() Options {
	return Options{
		Dataset: "data/evil" + osc52 + rlo + ".jsonl",
		Judge:   eval.JudgeInfo{Kind: "llm", Name: "gpt" + csi, Model: "gpt"},
		Results: hostileResults(),
		Started: fixedStart,
		Banner:  "judge: gpt\x1b]2;title\x07 at http://x" + zwsp,
		RunID:   "run" + osc52,
	}
}

var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// requireSafe fails when the frame carries anything a terminal would act
// on, other than the interface's own colours (SGR sequences), or hide.
func requireSafe(t *testing.T, what, frame string) {
	t.Helper()
	s := sgr.ReplaceAllString(frame, "")
	if !utf8.ValidString(s) {
		t.Fatalf("%s: invalid UTF-8:\n%q", what, s)
	}
	for i, r := range s {
		bad := (r < 0x20 && r != '\n') || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
			r == 0x061c || (r >= 0x200b && r <= 0x200f) || (r >= 0x2028 && r <= 0x202e) ||
			(r >= 0x2060 && r <= 0x206f) || r == 0xfeff
		if bad {
			t.Fatalf("%s: %U at byte %d:\n%q", what, r, i, s)
		}
	}
}

// visible is the frame as the user reads it: without colours.
func visible(frame string) string {
	return sgr.ReplaceAllString(frame, "")
}

func requireShows(t *testing.T, what, frame string, wants ...string) {
	t.Helper()
	s := visible(frame)
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Fatalf("%s does not show %q:\n%s", what, w, s)
		}
	}
}

func TestHostileTextIsShownNotApplied(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {120, 40}, {200, 60}} {
		t.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(t *testing.T) {
			opts := hostileOptions()
			opts.RawCalls = func([]string) (string, error) {
				return "== call 1\n   [user]\nanswer " + osc52 + "\n   [reply 1]\n{\"statements\": [\"x" + rlo + "\"]}\x1b[?1049l\r\n", nil
			}
			m := newTestModel(t, opts, sz[0], sz[1])
			table := m.View().Content
			requireSafe(t, "table", table)
			requireShows(t, "table", table, `Who\x1b[2J`, `judge gpt\x1b[2J`)
			if sz[0] >= 120 {
				requireShows(t, "table", table, `evil\x1b]52;c;aGVsbG8=\x07<U+202E>.jsonl`, `judge: gpt\x1b]2;title\x07 at http://x<U+200B>`)
			}

			pressDrive(t, m, "enter")
			detail := m.View().Content
			requireSafe(t, "detail", detail)
			requireShows(t, "detail", detail, `(id id\x1b]52;c;aGVsbG8=\x07<U+202E>)`, `Who\x1b[2J\x1b[31m wrote<U+202E>txt.exe<U+200B> it?`, "\n  line two")
			if sz[1] >= 60 {
				requireShows(t, "detail", detail,
					`Alice\x1b[0m wrote it\u009b2J in 1999.\x00 Bob<U+2066> helped.`, // answer
					`Alice wrote it\x1b]52;c;aGVsbG8=\x07 in 1999.\rOVERWRITE`,       // chunk 1
					`chunk    two\x7f<U+200D>`,                                       // chunk 2: tab expanded
					`Alice<U+202D> wrote it.`,                                        // reference
					`judge reply: \x1b[5mblink\x1b[0m`,                               // error
					`Alice wrote it<U+202E>.`,                                        // statement
					`the context says so\x1b]0;pwned\x07`,                            // reason
					`not in the context<U+FEFF>`,
					`names the author\u009d52;c;eA==\u009c`, // chunk reason
					`first chunk<U+2067>`,                   // recall reason
					`HTTP 500: \x1b]8;;http://evil\x07link`, // call error
				)
			}
			// Every line of the page, scrolled through, is safe.
			for range 40 {
				press(m, "ctrl+d")
				requireSafe(t, "detail scrolled", m.View().Content)
			}

			cmd := press(m, "x")
			if cmd != nil {
				m.Update(cmd())
			}
			raw := m.View().Content
			requireSafe(t, "raw", raw)
			requireShows(t, "raw", raw, `answer \x1b]52;c;aGVsbG8=\x07`, `x<U+202E>`, `\x1b[?1049l`)
		})
	}
}

func TestHostileErrorsAndStatus(t *testing.T) {
	m := newTestModel(t, hostileOptions(), 100, 30)
	m.setError("cannot read " + osc52 + "file" + rlo)
	s := m.View().Content
	requireSafe(t, "status", s)
	requireShows(t, "status", s, `cannot read \x1b]52;c;aGVsbG8=\x07file<U+202E>`)

	opts := hostileOptions()
	opts.RawCalls = func([]string) (string, error) { return "", errors.New("cache " + csi + "locked") }
	m = newTestModel(t, opts, 100, 30)
	if cmd := press(m, "enter", "x"); cmd != nil {
		m.Update(cmd())
	}
	s = m.View().Content
	requireSafe(t, "raw error", s)
	requireShows(t, "raw error", s, `cannot read the raw calls: cache \x1b[2J\x1b[31mlocked`)

	// A filter pasted with a bidi override in it: its error, and the
	// filter once applied. (The input line itself is the text input's,
	// which drops C0 and C1 controls as they are typed or pasted.)
	m = newTestModel(t, hostileOptions(), 100, 30)
	press(m, "/")
	m.input.SetValue("\"unclosed" + rlo)
	press(m, "enter")
	s = lineOf(visible(m.View().Content), "filter:")
	requireSafe(t, "filter error", s)
	requireShows(t, "filter error", s, `unclosed quote in "\"unclosed\u202e"`)
	m.input.SetValue("wrote" + rlo + "txt")
	press(m, "enter")
	s = lineOf(visible(m.View().Content), "filter:")
	requireSafe(t, "filter", s)
	requireShows(t, "filter", s, "filter: wrote<U+202E>txt  1 of 2 samples")
}

func TestHostileStoreAndPrompts(t *testing.T) {
	h := fixtureHost()
	h.runs = []report.RunInfo{
		{ID: "run-2" + osc52, Parent: "run-1" + rlo, StartedAt: fixedStart.Add(time.Minute), Judge: eval.JudgeInfo{Name: "gpt" + csi}, Samples: 2},
		{ID: "run-1", StartedAt: fixedStart, Judge: eval.JudgeInfo{Model: "m" + zwsp}, Samples: 2},
	}
	h.resultsErr = map[string]error{"run-2" + osc52: errors.New("not \x1b[31mthere")}
	list := fixturePrompts()
	list[0].Source = prompts.SourceOverride
	list[0].Path = "/home/u/prompts/evil" + osc52 + rlo + ".tmpl"
	h.list = list
	opts := hostOptions(h)
	opts.RunID = "run-1" + osc52
	m := newTestModel(t, opts, 120, 40)

	pressDrive(t, m, "c")
	s := m.View().Content
	requireSafe(t, "run picker", s)
	requireShows(t, "run picker", s, `run-2\x1b]52`, `gpt\x1b[2J`, `run-1<U+202E>`, `m<U+200B>`)
	pressDrive(t, m, "enter", "j", "enter")
	s = m.View().Content
	requireSafe(t, "run picker error", s)
	requireShows(t, "run picker error", s, `cannot load run run-2\x1b]52;c;aGVsbG8=\x07: not \x1b[31mthere`)
	press(m, "esc")

	pressDrive(t, m, "p")
	s = m.View().Content
	requireSafe(t, "prompts", s)
	requireShows(t, "prompts", s, `file: /home/u/prompts/evil\x1b]52;c;aGVsbG8=\x07<U+202E>.tmpl`)

	// The footer names the attached run when asking to stop it.
	opts = hostileOptions()
	opts.Live, opts.Attached, opts.Cancel = true, true, func() {}
	m = newTestModel(t, opts, 120, 40)
	press(m, "X")
	s = m.View().Content
	requireSafe(t, "stop question", s)
	requireShows(t, "stop question", s, `Stop run run\x1b]52;c;aGVsbG8=\x07?`)
}

// TestWindowTitleOfAHostileDatasetName: the title is sent to the terminal
// inside an OSC sequence of its own; an ESC or BEL in the file name would
// end it and start another, here an OSC 52 clipboard write.
func TestWindowTitleOfAHostileDatasetName(t *testing.T) {
	for _, name := range []string{
		"evil" + osc52 + ".jsonl",
		"evil\x1b\\\x1b]52;c;aGk=\x1b\\.jsonl",
		"evil\u009d52;c;aGk=\u009c.jsonl",
		"evil" + rlo + "lnosj.csv",
		"evil\xff\x9b.jsonl",
	} {
		m := newTestModel(t, Options{Dataset: name, Started: fixedStart}, 100, 30)
		v := m.View()
		title := v.WindowTitle
		if strings.ContainsAny(title, "\x1b\x07\u009b\u009c\u009d"+rlo) || !utf8.ValidString(title) {
			t.Errorf("window title of %q is %q", name, title)
		}
		if !strings.HasPrefix(title, "ragscope evil") || !strings.Contains(title, `\x`) && !strings.Contains(title, `\u`) && !strings.Contains(title, "<U+") {
			t.Errorf("window title of %q does not show the escapes: %q", name, title)
		}
		requireSafe(t, "header of "+name, v.Content)
	}
}

// TestGoldenHostile is the hostile run on screen, in golden files: the
// escapes are there, visible, where the text was.
func TestGoldenHostile(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		wait string
	}{
		{"table", nil, "diagnosis"},
		{"detail", []string{"enter"}, "sample 0"},
	}
	for _, tt := range tests {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s_%dx%d", tt.name, sz[0], sz[1]), func(t *testing.T) {
				m := New(hostileOptions())
				m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
				requireGoldenFrame(t, m, sz, tt.keys, tt.wait)
			})
		}
	}
}
