package tui

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/prompts"
)

func TestWorkflowKeysWithoutHost(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		want string
	}{
		{"p in the table", []string{"p"}, "the offline judge uses no prompts"},
		{"R in the table", []string{"R"}, "need an LLM judge"},
		{"c in the table", []string{"c"}, "comparing runs needs the run store"},
		{"r in the detail page", []string{"enter", "r"}, "need an LLM judge"},
		{"P in the detail page", []string{"enter", "P"}, "the offline judge uses no prompts"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newTestModel(t, fixtureOptions(), 100, 30)
			before := m.screen
			if len(tt.keys) > 1 {
				press(m, tt.keys[:len(tt.keys)-1]...)
				before = m.screen
			}
			if cmd := press(m, tt.keys[len(tt.keys)-1]); cmd != nil {
				t.Fatal("a workflow key without a Host produced a command")
			}
			if m.screen != before {
				t.Fatalf("screen changed to %v", m.screen)
			}
			if s := flat(screenText(m)); !strings.Contains(s, tt.want) {
				t.Fatalf("screen misses %q:\n%s", tt.want, screenText(m))
			}
			press(m, "j")
			if s := flat(screenText(m)); strings.Contains(s, tt.want) {
				t.Fatal("the message outlives the next key")
			}
		})
	}
}

func TestPromptList(t *testing.T) {
	h := fixtureHost()
	h.list[3].Source, h.list[3].Path = prompts.SourceOverride, "/home/u/prompts/faithfulness_verdicts.zh.tmpl"
	m := newTestModel(t, hostOptions(h), 120, 30)
	pressDrive(t, m, "p")
	if m.screen != screenPrompts {
		t.Fatalf("p opened screen %v", m.screen)
	}
	s := screenText(m)
	for _, want := range []string{
		"judge prompts",
		"faithfulness_verdicts",
		"override  " + shortHash(h.list[3].SHA256) + "  /home/u/prompts/faithfulness_verdicts.zh.tmpl",
		"embedded  " + shortHash(h.list[0].SHA256),
		"context_recall_classifications",
		"e edit in $EDITOR",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("prompt list misses %q:\n%s", want, s)
		}
	}
	press(m, "j", "j", "k")
	if m.prompts.cursor != 1 {
		t.Fatalf("cursor %d after j j k, want 1", m.prompts.cursor)
	}
	press(m, "esc")
	if m.screen != screenTable {
		t.Fatalf("esc went to %v", m.screen)
	}
	// From the detail page P opens it, and esc returns there.
	pressDrive(t, m, "enter", "P")
	if m.screen != screenPrompts {
		t.Fatalf("P in the detail page opened %v", m.screen)
	}
	press(m, "esc")
	if m.screen != screenDetail {
		t.Fatalf("esc from the prompts opened from the detail page went to %v", m.screen)
	}
}

func TestPromptEdit(t *testing.T) {
	const path = "/home/u/.config/ragscope/prompts/faithfulness_verdicts.en.tmpl"
	edited := func() []prompts.Info {
		l := fixturePrompts()
		l[2].Source, l[2].Path, l[2].SHA256 = prompts.SourceOverride, path, "ab12cd34ef"+strings.Repeat("0", 54)
		return l
	}
	tests := []struct {
		name      string
		editErr   error
		editorErr error
		reloadErr error
		after     []prompts.Info
		want      []string
		wantExec  bool
	}{
		{name: "edit applied", after: edited(), wantExec: true,
			want: []string{"prompt faithfulness_verdicts.en updated (sha256 ab12cd34"}},
		{name: "saved without change", wantExec: true,
			want: []string{"prompt faithfulness_verdicts.en unchanged"}},
		{name: "broken template", wantExec: true,
			reloadErr: errors.New(path + ":7: template: unexpected \"}\" in operand"),
			want: []string{"prompt faithfulness_verdicts.en not updated, the previous prompts stay in use",
				"faithfulness_verdicts.en.tmpl:7: template: unexpected"}},
		{name: "unknown field", wantExec: true,
			reloadErr: errors.New(path + ":3:14: executing: .Answr is not a field of the data (Question, Answer, Reference, Contexts, Statements, Chunk, Rank)"),
			want:      []string{"not updated", "faithfulness_verdicts.en.tmpl:3:14", ".Answr is not a field"}},
		{name: "editor failed", wantExec: true, editorErr: errors.New("exit status 1"),
			want: []string{"not updated", "editor: exit status 1"}},
		{name: "cannot create the override", editErr: errors.New("mkdir /home/u/.config: permission denied"),
			want: []string{"cannot edit faithfulness_verdicts.en: mkdir /home/u/.config: permission denied"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := fixtureHost()
			h.editPath, h.editErr, h.reloadErr, h.afterEdit = path, tt.editErr, tt.reloadErr, tt.after
			m := newTestModel(t, hostOptions(h), 120, 30)
			rec := &execRecorder{err: tt.editorErr}
			m.exec = rec.exec
			m.editor = func(p string) (*execCmd, error) {
				return editorCommand(p, func(v string) string {
					if v == "EDITOR" {
						return "vim -u NONE"
					}
					return ""
				}, func(f string) (string, error) { return "/bin/" + f, nil })
			}
			pressDrive(t, m, "j", "p", "j", "j", "e") // the cursor on sample 1, the third template
			if !slices.Equal(h.edited, []string{"faithfulness_verdicts.en"}) {
				t.Fatalf("EditPath asked for %v", h.edited)
			}
			if !tt.wantExec {
				if len(rec.cmds) != 0 {
					t.Fatal("the editor ran although there is no file to edit")
				}
			} else {
				if len(rec.cmds) != 1 {
					t.Fatalf("%d editor commands, want 1", len(rec.cmds))
				}
				args := rec.cmds[0].Args
				if args[len(args)-1] != path || !slices.Contains(args, "vim -u NONE \"$@\"") {
					t.Fatalf("editor command %q does not edit %s with $EDITOR", args, path)
				}
				if len(h.reloaded) != 1 || h.reloaded[0] == nil || h.reloaded[0].Index != 1 {
					t.Fatalf("Reload validated against %v, want sample 1", h.reloaded)
				}
			}
			if m.screen != screenPrompts {
				t.Fatalf("after the editor the screen is %v, want the prompt list", m.screen)
			}
			s := screenText(m)
			for _, w := range tt.want {
				if !strings.Contains(flat(s), w) {
					t.Fatalf("screen misses %q:\n%s", w, s)
				}
			}
			if tt.after != nil && !strings.Contains(s, "override  ab12cd34  /home/u/.config/ragscope/prompts/") {
				t.Fatalf("the list does not show the new override:\n%s", s)
			}
		})
	}
}

func TestEditorCommand(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		have    []string // binaries on PATH
		want    []string
		wantErr string
	}{
		{"VISUAL first", map[string]string{"VISUAL": "code --wait", "EDITOR": "vim"}, []string{"sh"},
			[]string{"/bin/sh", "-c", `code --wait "$@"`, "code --wait", "/p/f.tmpl"}, ""},
		{"EDITOR", map[string]string{"EDITOR": "nano"}, []string{"sh"},
			[]string{"/bin/sh", "-c", `nano "$@"`, "nano", "/p/f.tmpl"}, ""},
		{"no shell splits the words", map[string]string{"EDITOR": "vim -u NONE"}, []string{"vim"},
			[]string{"/bin/vim", "-u", "NONE", "/p/f.tmpl"}, ""},
		{"no shell, editor missing", map[string]string{"EDITOR": "hx"}, nil, nil, "$EDITOR=hx: hx not found in PATH"},
		{"falls back to vi", nil, []string{"vi", "nano"}, []string{"/bin/vi", "/p/f.tmpl"}, ""},
		{"then nano", nil, []string{"nano"}, []string{"/bin/nano", "/p/f.tmpl"}, ""},
		{"blank variables are unset", map[string]string{"VISUAL": "  "}, []string{"nano"}, []string{"/bin/nano", "/p/f.tmpl"}, ""},
		{"nothing", nil, nil, nil, "no editor: set $VISUAL or $EDITOR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := editorCommand("/p/f.tmpl", func(k string) string { return tt.env[k] }, func(f string) (string, error) {
				if slices.Contains(tt.have, f) {
					return "/bin/" + f, nil
				}
				return "", errors.New("not found")
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
			if !slices.Equal(c.Args, tt.want) || c.Path != tt.want[0] {
				t.Fatalf("command %q (path %s), want %q", c.Args, c.Path, tt.want)
			}
		})
	}
}

// rerunTo drives the model to the re-run question.
func TestRerun(t *testing.T) {
	tests := []struct {
		name        string
		filter      string
		keys        []string
		wantPlan    Plan // Indexes and Metrics asked
		wantAsk     string
		wantReruns  int
		wantOnTable []string
		wantStatus  string
	}{
		{
			name:       "r re-runs the open sample, all metrics",
			keys:       []string{"enter", "r"},
			wantPlan:   Plan{Indexes: []int{0}, Metrics: eval.DefaultMetrics},
			wantAsk:    "Re-run sample 0 (all metrics)? 2 judge calls will be sent, ~820 prompt tokens; 6 answered from the cache. [y/n]",
			wantReruns: 1,
		},
		{
			name:     "focus 2 then r re-runs answer relevancy only",
			keys:     []string{"enter", "2", "r"},
			wantPlan: Plan{Indexes: []int{0}, Metrics: []eval.Metric{eval.AnswerRelevancy}},
			wantAsk:  "Re-run sample 0 (answer_relevancy)?",
		},
		{
			name:     "R re-runs the filtered samples",
			filter:   "f<0.5",
			keys:     []string{"R"},
			wantPlan: Plan{Indexes: []int{0, 6}, Metrics: eval.DefaultMetrics},
			wantAsk:  "Re-run 2 samples (all metrics)? 2 judge calls will be sent",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := fixtureHost()
			m := newTestModel(t, hostOptions(h), 120, 40)
			applyFilter(m, tt.filter)
			pressDrive(t, m, tt.keys...)
			if len(h.planned) != 1 || !slices.Equal(h.planned[0].Indexes, tt.wantPlan.Indexes) || !slices.Equal(h.planned[0].Metrics, tt.wantPlan.Metrics) {
				t.Fatalf("planned %+v, want %+v", h.planned, tt.wantPlan)
			}
			if s := flat(screenText(m)); !strings.Contains(s, tt.wantAsk) {
				t.Fatalf("question %q not on screen:\n%s", tt.wantAsk, screenText(m))
			}
			if len(h.reran) != 0 {
				t.Fatal("re-ran before the answer")
			}
			// j is not yes: it cancels and sends nothing.
			pressDrive(t, m, "n")
			if m.ask != nil || len(h.reran) != 0 || !strings.Contains(screenText(m), "re-run cancelled; nothing was sent") {
				t.Fatalf("n did not cancel: ask=%v reran=%d\n%s", m.ask != nil, len(h.reran), screenText(m))
			}
		})
	}
}

func TestRerunUpdatesDeltaAndDetail(t *testing.T) {
	h := fixtureHost()
	m := newTestModel(t, hostOptions(h), 120, 40)
	applyFilter(m, "f<0.5")
	pressDrive(t, m, "R", "y")
	if len(h.reran) != 1 || !slices.Equal(h.reran[0].Indexes, []int{0, 6}) || h.reran[0].Calls != 2 {
		t.Fatalf("Rerun got %+v", h.reran)
	}
	if m.rerun != nil {
		t.Fatal("the re-run did not finish when its events closed")
	}
	if m.runID != "run-2" {
		t.Fatalf("current run %q, want the re-run run-2", m.runID)
	}
	s := screenText(m)
	for _, want := range []string{
		"compare run-1 → run-2  2 compared, 1 changed  mean Δ F +0.167 AR . CP . CR .",
		"re-run run-2 finished: 2 of 2 samples re-scored, 2 calls sent, 2 from the cache",
		"ΔF    AR    ΔAR",
		"0.000      . 0.640      .  n/a       .", // sample 6: re-run, unchanged
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("table misses %q:\n%s", want, s)
		}
	}
	// Sample 0 now scores 0.667 and leaves the filter f<0.5; esc clears
	// the filter, and the comparison stays.
	press(m, "esc")
	if m.cmp == nil {
		t.Fatal("esc with a filter left the comparison")
	}
	s = screenText(m)
	if row := lineOf(s, "小规模纳税人"); !strings.Contains(row, "0.667 +0.333 0.727      . 1.000      . 1.000      .") {
		t.Fatalf("sample 0 does not show its newer score and change: %q", row)
	}
	// Samples the re-run did not touch keep one score and no Δ.
	if row := lineOf(s, "When was the Eiffel Tower"); !strings.Contains(row, "1.000        0.930        1.000        1.000        ok") {
		t.Fatalf("an untouched sample shows a change: %q", row)
	}
	// The detail page shows before -> after and the flipped verdict.
	press(m, "g", "enter")
	m.Update(windowSize(120, 200))
	s = screenText(m)
	for _, want := range []string{
		"compared: run-1 → run-2",
		"1 faithfulness  0.333 → 0.667  (+0.333)",
		"0 → 1 转为一般纳税人后需要重新办理税务登记。",
		"before: 上下文写明无需重新办理税务登记。",
		"after:  上下文说明了登记的处理方式，陈述可由此推断。",
		"2 of 3 statements supported = 0.667",
		"2 answer_relevancy  0.727 → 0.727  (unchanged)",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("detail misses %q:\n%s", want, s)
		}
	}
	// esc on the table leaves the comparison and keeps the re-run's scores.
	press(m, "esc", "esc")
	if m.cmp != nil || strings.Contains(screenText(m), "ΔF") {
		t.Fatalf("esc did not leave the comparison:\n%s", screenText(m))
	}
	if !strings.Contains(lineOf(screenText(m), "小规模纳税人"), "0.667") {
		t.Fatal("leaving a re-run's comparison dropped the re-run's scores")
	}
}

func TestRerunOneMetricKeepsTheOthers(t *testing.T) {
	h := fixtureHost()
	ar := fixtureResults()[0]
	ar.Scores = map[eval.Metric]*float64{eval.AnswerRelevancy: score(0.9)}
	ar.Status = map[eval.Metric]eval.Status{eval.AnswerRelevancy: eval.StatusOK}
	ar.Faithfulness, ar.ContextPrecision, ar.ContextRecall = nil, nil, nil
	h.rerunEvents = []eval.Event{{Kind: eval.EventSampleFinished, Sample: 0, Result: ar}}
	m := newTestModel(t, hostOptions(h), 120, 40)
	pressDrive(t, m, "enter", "2", "r", "y", "esc")
	row := lineOf(screenText(m), "小规模纳税人")
	for _, want := range []string{"0.333", "0.900 +0.173", "1.000"} {
		if !strings.Contains(row, want) {
			t.Fatalf("row %q misses %q", row, want)
		}
	}
	// Only the re-run metric has a Δ cell; the others stay blank.
	if strings.Contains(row, "0.333      .") {
		t.Fatalf("faithfulness was not re-run but shows a Δ: %q", row)
	}
}

func TestRerunFailures(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*fakeHost, *Options)
		keys  []string
		want  string
	}{
		{"plan fails", func(h *fakeHost, _ *Options) { h.planErr = errors.New("cache.db: locked") }, []string{"R"},
			"cannot cost the re-run: cache.db: locked"},
		{"rerun fails", func(h *fakeHost, _ *Options) { h.rerunErr = errors.New("run store is read-only") }, []string{"R", "y"},
			"cannot start the re-run: run store is read-only"},
		{"live run", func(_ *fakeHost, o *Options) { o.Live = true }, []string{"R"},
			"the run is still in progress"},
		{"no sample matches", func(_ *fakeHost, o *Options) { o.Results = nil }, []string{"R"},
			"no sample to re-run"},
		{"failed calls are reported", func(h *fakeHost, _ *Options) {
			h.rerunEvents = append([]eval.Event{{Kind: eval.EventCall, Sample: 0, Call: &eval.CallRecord{Task: "faithfulness_verdicts", Error: "HTTP 500"}},
				{Kind: eval.EventError, Sample: 0, Metric: eval.Faithfulness, Err: "HTTP 500"}}, h.rerunEvents...)
		}, []string{"R", "y"}, "1 failed calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := fixtureHost()
			opts := hostOptions(h)
			tt.setup(h, &opts)
			m := newTestModel(t, opts, 120, 40)
			pressDrive(t, m, tt.keys...)
			if s := flat(screenText(m)); !strings.Contains(s, tt.want) {
				t.Fatalf("screen misses %q:\n%s", tt.want, screenText(m))
			}
			if m.rerun != nil || m.ask != nil {
				t.Fatalf("left a re-run (%v) or a question (%v) behind", m.rerun != nil, m.ask != nil)
			}
		})
	}
}

func TestRerunInProgress(t *testing.T) {
	h := fixtureHost()
	m := newTestModel(t, hostOptions(h), 120, 40)
	press(m, "R")
	_, cmd := m.Update(planMsg{gen: m.gen, plan: Plan{Indexes: []int{0, 6}, Metrics: eval.DefaultMetrics, Calls: 2}})
	if cmd != nil || m.ask == nil {
		t.Fatal("no question after the plan")
	}
	cmd = press(m, "y")
	msg := cmd().(rerunStartedMsg)
	// Hold the events: the re-run is under way with one result in. The
	// stream's command is not run; its batch is sent as Forward would.
	ch := make(chan eval.Event, 1)
	msg.events = ch
	if _, stream := m.Update(msg); stream == nil {
		t.Fatal("the re-run's stream was not started")
	}
	ev := rerunEvents()
	m.Update(EventsMsg{Stream: m.rerun.gen, Events: ev[:5]})
	s := screenText(m)
	for _, want := range []string{"re-run run-2", "1/2", "sent 1", "cached 1"} {
		if !strings.Contains(s, want) {
			t.Fatalf("progress misses %q:\n%s", want, s)
		}
	}
	for key, want := range map[string]string{"R": "a re-run is in progress (1/2)", "c": "a re-run is in progress", "esc": "the comparison stays until it finishes"} {
		press(m, key)
		if !strings.Contains(screenText(m), want) {
			t.Fatalf("%s during a re-run: screen misses %q:\n%s", key, want, screenText(m))
		}
	}
	// q asks, y quits and cancels the re-run.
	press(m, "q")
	if !strings.Contains(screenText(m), "Quit and stop the run?") {
		t.Fatal("q during a re-run does not ask")
	}
	if !isQuit(press(m, "y")) {
		t.Fatal("y does not quit")
	}
	close(ch)
}

func TestComparePicker(t *testing.T) {
	h := fixtureHost()
	m := newTestModel(t, hostOptions(h), 120, 40)
	pressDrive(t, m, "c")
	s := screenText(m)
	for _, want := range []string{"compare runs", "run-2", "- (shown)", "2026-03-14 09:36"} {
		if !strings.Contains(s, want) {
			t.Fatalf("picker misses %q:\n%s", want, s)
		}
	}
	pressDrive(t, m, "j", "enter") // run-1 is the base
	if m.picker.base != 1 || !strings.Contains(screenText(m), "base") {
		t.Fatalf("base not picked: %+v", m.picker)
	}
	pressDrive(t, m, "enter") // picking it again un-picks it
	if m.picker.base != -1 {
		t.Fatal("picking the base again did not un-pick it")
	}
	pressDrive(t, m, "enter", "k", "space") // run-1 base, run-2 compared
	if m.screen != screenTable || m.cmp == nil {
		t.Fatalf("no comparison: screen %v", m.screen)
	}
	if !slices.Equal(h.loaded, []string{"run-1", "run-2"}) && !slices.Equal(h.loaded, []string{"run-2", "run-1"}) {
		t.Fatalf("loaded %v", h.loaded)
	}
	s = screenText(m)
	for _, want := range []string{"compare run-1 → run-2  2 compared, 1 changed", "0.667 +0.333", "ΔAR"} {
		if !strings.Contains(s, want) {
			t.Fatalf("comparison misses %q:\n%s", want, s)
		}
	}
	if len(m.rows) != 8 {
		t.Fatalf("%d rows, want the 8 samples of both runs", len(m.rows))
	}
	press(m, "esc")
	if m.cmp != nil || !strings.Contains(lineOf(screenText(m), "小规模纳税人"), "0.333") || strings.Contains(screenText(m), "ΔF") {
		t.Fatalf("esc did not put back the shown run:\n%s", screenText(m))
	}
}

func TestComparePickerFailures(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*fakeHost)
		keys  []string
		want  string
	}{
		{"runs fail", func(h *fakeHost) { h.runsErr = errors.New("runs.db: timeout") }, []string{"c"}, "cannot list the stored runs: runs.db: timeout"},
		{"one run only", func(h *fakeHost) { h.runs = h.runs[1:] }, []string{"c"}, "comparing needs two stored runs"},
		{"results fail", func(h *fakeHost) { h.resultsErr = map[string]error{"run-2": errBoom} }, []string{"c", "enter", "j", "enter"}, "cannot load run run-2: boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := fixtureHost()
			tt.setup(h)
			m := newTestModel(t, hostOptions(h), 120, 40)
			pressDrive(t, m, tt.keys...)
			if m.screen != screenRuns || m.cmp != nil {
				t.Fatalf("screen %v, compare %v", m.screen, m.cmp != nil)
			}
			if s := screenText(m); !strings.Contains(s, tt.want) {
				t.Fatalf("picker misses %q:\n%s", tt.want, s)
			}
			press(m, "esc")
			if m.screen != screenTable {
				t.Fatal("esc does not leave the picker")
			}
		})
	}
}

func TestCompareASCII(t *testing.T) {
	h := fixtureHost()
	opts := hostOptions(h)
	opts.ASCII = true
	m := newTestModel(t, opts, 120, 60)
	check := func(where string, want ...string) {
		t.Helper()
		s := screenText(m)
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Fatalf("%s misses %q:\n%s", where, w, s)
			}
		}
		for _, r := range s {
			if runewidth.IsAmbiguousWidth(r) {
				t.Fatalf("%s: ambiguous-width glyph %q in --ascii mode:\n%s", where, r, s)
			}
		}
	}
	pressDrive(t, m, "R")
	check("question", "Re-run 8 samples")
	pressDrive(t, m, "y")
	check("table", "dF", "compare run-1 -> run-2", "0.667 +0.333")
	press(m, "enter")
	check("detail", "1 faithfulness  0.333 -> 0.667  (+0.333)", "0 -> 1 ")
	press(m, "esc", "c")
	check("picker")
	press(m, "esc", "p")
	check("prompts")
}

func TestWorkflowKeysInHelp(t *testing.T) {
	tests := []struct {
		name       string
		host       bool
		keys       []string
		footer     []string
		notFooter  []string
		helpScreen []string
	}{
		{name: "table with a host", host: true, footer: []string{"R re-run filtered", "p prompts", "c compare", "q quit"},
			helpScreen: []string{"prompts", "re-run filtered", "compare runs"}},
		{name: "table without a host", footer: []string{"q quit"}, notFooter: []string{"re-run", "prompts"},
			helpScreen: []string{"prompts", "re-run filtered", "compare runs"}},
		{name: "detail with a host", host: true, keys: []string{"enter"}, footer: []string{"r re-run", "P prompts"},
			helpScreen: []string{"re-run (1-4 picks a metric)", "previous sample"}},
		{name: "prompt list", host: true, keys: []string{"p"}, footer: []string{"e edit in $EDITOR", "esc back"},
			helpScreen: []string{"keys: judge prompts", "edit in $EDITOR"}},
		{name: "run picker", host: true, keys: []string{"c"}, footer: []string{"enter/space pick base, then compare"},
			helpScreen: []string{"keys: compare runs"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := fixtureOptions()
			if tt.host {
				opts = hostOptions(fixtureHost())
			}
			m := newTestModel(t, opts, 160, 40)
			pressDrive(t, m, tt.keys...)
			lines := strings.Split(screenText(m), "\n")
			footer := lines[len(lines)-1]
			for _, w := range tt.footer {
				if !strings.Contains(footer, w) {
					t.Fatalf("footer misses %q: %q", w, footer)
				}
			}
			for _, w := range tt.notFooter {
				if strings.Contains(footer, w) {
					t.Fatalf("footer offers %q without a host: %q", w, footer)
				}
			}
			press(m, "?")
			s := screenText(m)
			for _, w := range tt.helpScreen {
				if !strings.Contains(s, w) {
					t.Fatalf("help misses %q:\n%s", w, s)
				}
			}
		})
	}
}
