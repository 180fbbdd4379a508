package tui

import (
	"strings"
	"sync"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/labels"
)

// fakeLabels is a LabelHost in memory.
type fakeLabels struct {
	mu     sync.Mutex
	labels map[string]labels.Label
	runs   []string // the runs Marks and Agreement were asked for
}

func (f *fakeLabels) Labels(r *eval.Result) (map[string]labels.Label, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := map[string]labels.Label{}
	for _, it := range labels.Items(r) {
		if l, ok := f.labels[it.Key]; ok {
			out[it.Key] = l
		}
	}
	return out, nil
}

func (f *fakeLabels) SetLabel(r *eval.Result, it labels.Item, value int, note string) (labels.Label, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if value < 0 {
		delete(f.labels, it.Key)
		return labels.Label{}, nil
	}
	l := labels.Label{Key: it.Key, SampleKey: labels.ResultSampleKey(r), Sample: labels.SampleRef(r), Task: it.Task, Item: it.Text, Value: value, Note: note}
	f.labels[it.Key] = l
	return l, nil
}

func (f *fakeLabels) Marks(runID string) (map[int]uint8, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.runs = append(f.runs, runID)
	marks := map[int]uint8{}
	for _, r := range fixtureResults() {
		if mk := MarkOf(labels.Items(r), f.labels); mk != 0 {
			marks[r.Index] = mk
		}
	}
	return marks, nil
}

func (f *fakeLabels) Agreement(runID string) (*labels.Agreement, error) {
	f.mu.Lock()
	t := labels.NewAgreementTally(runID, f.labels)
	f.runs = append(f.runs, runID)
	f.mu.Unlock()
	for _, r := range fixtureResults() {
		t.Add(r)
	}
	return t.Agreement(), nil
}

func labelModel(t *testing.T) (*Model, *fakeLabels) {
	t.Helper()
	h := &fakeLabels{labels: map[string]labels.Label{}}
	opts := fixtureOptions()
	opts.Labels = h
	opts.RunID = "run-1"
	m := newTestModel(t, opts, 100, 40)
	drive(t, m, m.Init())
	return m, h
}

// The sequence in the model: open a sample, move to a statement,
// mark disagree (with a note), go back, filter label:disputed, see it.
func TestLabelDisagreeThenFilterDisputed(t *testing.T) {
	m, h := labelModel(t)
	pressDrive(t, m, "enter", "?")
	if s := screenText(m); !strings.Contains(s, "next judged item") || !strings.Contains(s, "a agree with the judge") {
		t.Fatalf("the detail page's ? does not list the label keys:\n%s", s)
	}
	press(m, "?")
	press(m, "d")
	if !strings.Contains(flat(screenText(m)), "pick a judged item first") {
		t.Fatalf("d before an item is picked is not refused with the reason:\n%s", screenText(m))
	}
	pressDrive(t, m, "]")
	s := screenText(m)
	if !strings.Contains(s, "> not labelled: a agree, d disagree") {
		t.Fatalf("] does not pick the first statement:\n%s", s)
	}
	pressDrive(t, m, "d")
	first := fixtureResults()[0]
	it := labels.Items(first)[0]
	if l, ok := h.labels[it.Key]; !ok || l.Value != 1 || l.Task != eval.LabelFaithfulness || l.Item != it.Text {
		t.Fatalf("d stored %+v, want the first statement labelled 1 (the judge said 0)", h.labels)
	}
	if s := flat(screenText(m)); !strings.Contains(s, "human: verdict 1, the judge said 0 (disputed)") {
		t.Fatalf("the page does not show the label beside the verdict:\n%s", screenText(m))
	}

	// A note, typed into the page; q is text there, not quit.
	pressDrive(t, m, "m")
	typeText(m, "negation missed q")
	pressDrive(t, m, "enter")
	if l := h.labels[it.Key]; l.Note != "negation missed q" || l.Value != 1 {
		t.Fatalf("the note was stored as %+v", l)
	}
	if s := flat(screenText(m)); !strings.Contains(s, "(disputed): negation missed q") {
		t.Fatalf("the note is not shown:\n%s", screenText(m))
	}

	press(m, "esc")
	applyFilter(m, "label:disputed")
	if got := shownSamples(m); len(got) != 1 || got[0] != 0 {
		t.Fatalf("label:disputed shows %v, want [0]", got)
	}
	if line := lineOf(screenText(m), "小规模纳税人"); !strings.Contains(line, "D  0 ") {
		t.Fatalf("the row has no D mark: %q", line)
	}
	press(m, "esc")
	applyFilter(m, "label:agreed")
	if got := shownSamples(m); len(got) != 0 {
		t.Fatalf("label:agreed shows %v, want none", got)
	}

	// Agree instead: the sample is labelled, no longer disputed.
	press(m, "esc")
	applyFilter(m, "label:any")
	pressDrive(t, m, "enter", "]", "a")
	if l := h.labels[it.Key]; l.Value != 0 || l.Note != "negation missed q" {
		t.Fatalf("a stored %+v, want the judge's 0 with the note kept", l)
	}
	press(m, "esc", "esc")
	applyFilter(m, "label:disputed")
	if got := shownSamples(m); len(got) != 0 {
		t.Fatalf("after agreeing label:disputed shows %v", got)
	}
	press(m, "esc")
	applyFilter(m, "label:agreed")
	if got := shownSamples(m); len(got) != 1 || got[0] != 0 {
		t.Fatalf("label:agreed shows %v, want [0]", got)
	}

	// u removes the label.
	press(m, "esc")
	pressDrive(t, m, "enter", "]", "u")
	if len(h.labels) != 0 {
		t.Fatalf("u left %+v", h.labels)
	}
	press(m, "esc")
	applyFilter(m, "label:any")
	if got := shownSamples(m); len(got) != 0 {
		t.Fatalf("after u label:any shows %v", got)
	}
}

func TestLabelMarksReadAtStartAndFilterErrors(t *testing.T) {
	h := &fakeLabels{labels: map[string]labels.Label{}}
	r := fixtureResults()[1]
	it := labels.Items(r)[0]
	h.labels[it.Key] = labels.Label{Key: it.Key, Task: it.Task, Item: it.Text, Value: it.Judge}
	opts := fixtureOptions()
	opts.Labels, opts.RunID = h, "run-7"
	m := newTestModel(t, opts, 100, 40)
	drive(t, m, m.Init())
	applyFilter(m, "label:agreed")
	if got := shownSamples(m); len(got) != 1 || got[0] != 1 {
		t.Fatalf("label:agreed shows %v, want [1] from the stored labels", got)
	}
	if len(h.runs) == 0 || h.runs[0] != "run-7" {
		t.Fatalf("marks asked for runs %v", h.runs)
	}
	if _, err := parseFilter("label:maybe", critSet{}); err == nil || !strings.Contains(err.Error(), "label:disputed") {
		t.Fatalf("label:maybe: %v", err)
	}
}

func TestAgreementPanel(t *testing.T) {
	m, h := labelModel(t)
	pressDrive(t, m, "enter", "]", "d", "esc", "A")
	s := screenText(m)
	if !strings.Contains(s, "agreement with the human labels") || !strings.Contains(s, "faithfulness_verdicts") {
		t.Fatalf("A does not show the agreement panel:\n%s", s)
	}
	// One item, judge 0, human 1: accuracy 0, κ 0 (p_e = 0), fn 1.
	line := lineOf(s, "faithfulness_verdicts")
	if f := strings.Fields(line); len(f) < 8 || f[1] != "1" || f[2] != "0.000" || f[3] != "0.000" || f[7] != "1" {
		t.Fatalf("faithfulness line %q", line)
	}
	if h.runs[len(h.runs)-1] != "run-1" {
		t.Fatalf("agreement asked for %v", h.runs)
	}
	press(m, "esc")
	if m.screen != screenTable {
		t.Fatalf("esc from the panel goes to screen %d, want the table", m.screen)
	}
}

func TestNoLabelStoreNoLabelKeys(t *testing.T) {
	m := newTestModel(t, fixtureOptions(), 100, 40)
	pressDrive(t, m, "enter", "]", "d", "A")
	if s := screenText(m); strings.Contains(s, "judged item") || strings.Contains(s, "human:") || m.screen != screenDetail {
		t.Fatalf("labelling without a store:\n%s", s)
	}
}

// In a live run the marks are read at the start, when few samples are
// stored; at the run's end they are read again, so a label on a sample
// stored later marks it and the label: filters find it.
func TestMarksReadAgainAtTheRunsEnd(t *testing.T) {
	h := &fakeLabels{labels: map[string]labels.Label{}}
	opts := fixtureOptions()
	opts.Labels, opts.RunID, opts.Live = h, "run-1", true
	m := newTestModel(t, opts, 100, 40)
	run(m, m.loadMarks()) // what Init reads; a live Init also ticks, which run would follow forever
	if len(m.lab.marks) != 0 {
		t.Fatalf("marks before any label: %v", m.lab.marks)
	}
	// A label stored meanwhile (another session labelled this sample).
	r := fixtureResults()[0]
	it := labels.Items(r)[0]
	if _, err := h.SetLabel(r, it, 1-it.Judge, ""); err != nil {
		t.Fatal(err)
	}
	_, cmd := m.Update(EventsMsg{Events: []eval.Event{{Kind: eval.EventRunFinished, Sample: -1}}})
	run(m, cmd)
	if m.lab.marks[r.Index] == 0 {
		t.Fatalf("no mark on sample %d after the run's end: %v", r.Index, m.lab.marks)
	}
}
