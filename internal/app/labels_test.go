package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report"
	reportlabels "github.com/ragscope/ragscope/eval/report/labels"
	"github.com/ragscope/ragscope/internal/labels"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/prompts"
)

// The workflow without the interface: labels imported against a
// run, agreement before and after a prompt edit, the labels surviving the
// re-run and applied to its new verdicts.
func TestLabelsSurviveARerunWithAnEditedPrompt(t *testing.T) {
	srv := fakejudge.New(lenientJudge)
	defer srv.Close()
	pdir := filepath.Join(t.TempDir(), "prompts")
	if err := os.Mkdir(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	s := newTestSession(t, srv, smallDataset(t, 3), pdir)
	st := s.Store
	first := s.Info().ID

	file := `{"sample": "s0", "task": "faithfulness_verdicts", "item": "first statement", "label": 1, "note": "the context says so"}
{"sample": "s1", "task": "faithfulness_verdicts", "item": "first statement", "label": 1}
{"sample": "s1", "task": "context_precision_verdict", "item": "1", "label": 0, "note": "off topic"}
{"sample": "s2", "task": "faithfulness_verdicts", "item": "no such statement", "label": 0}
{"sample": "zz", "task": "context_recall_classifications", "item": "ref one", "label": 0}
`
	lines, err := labels.Parse("labels.jsonl", strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	rep, err := labels.Import(st, "latest", lines, "ana", now)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Added != 3 || rep.Changed != 0 || rep.Unchanged != 0 || len(rep.Unmatched) != 2 {
		t.Fatalf("first import: %+v", rep)
	}
	if u := rep.Unmatched; u[0].Line != 4 || !strings.Contains(u[0].Why, `no faithfulness_verdicts statement "no such statement"`) ||
		u[1].Line != 5 || !strings.Contains(u[1].Why, `no sample "zz"`) {
		t.Fatalf("unmatched lines: %+v", u)
	}
	rep, err = labels.Import(st, first, lines, "bob", now.Add(time.Hour))
	if err != nil || rep.Added != 0 || rep.Changed != 0 || rep.Unchanged != 3 {
		t.Fatalf("the same import again: %+v, %v", rep, err)
	}
	stored, _ := st.Labels(nil)
	for _, l := range stored {
		if l.By != "ana" || !l.UpdatedAt.Equal(now) {
			t.Fatalf("an import of the same labels rewrote one: %+v", l)
		}
	}

	// Before the edit the judge rejects both labelled statements.
	a, err := labels.Agreement(st, "latest")
	if err != nil {
		t.Fatal(err)
	}
	f := a.Tasks[eval.LabelFaithfulness]
	if f.Labelled != 2 || f.Confusion != (reportlabels.Confusion{FN: 2}) || *f.Accuracy != 0 || *f.Kappa != 0 || a.Before != nil {
		t.Fatalf("agreement before the edit: %+v", f)
	}
	if m := a.Metrics[eval.Faithfulness]; m.Changed != 2 || *m.Mean != 0.5 || *m.MeanWithLabels != 2.5/3 {
		t.Fatalf("faithfulness with labels before the edit: %+v", m)
	}

	// Edit the verdict prompt, re-run every sample's faithfulness.
	h := NewHost(s)
	editTo(t, h, prompts.TaskFaithfulnessVerdicts, "en", "LENIENT: accept paraphrases.\n")
	plan, err := h.Plan(context.Background(), []int{0, 1, 2}, []eval.Metric{eval.Faithfulness})
	if err != nil {
		t.Fatal(err)
	}
	rerun, events, err := h.Rerun(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	drain(t, events)

	a, err = labels.Agreement(st, rerun)
	if err != nil {
		t.Fatal(err)
	}
	f = a.Tasks[eval.LabelFaithfulness]
	if f.Labelled != 2 || f.Confusion != (reportlabels.Confusion{TP: 2}) || *f.Accuracy != 1 || f.Kappa != nil || f.KappaUndefined == "" {
		t.Fatalf("agreement after the edit: %+v", f)
	}
	if a.Before == nil || a.Before.Run != first || *a.Before.Tasks[eval.LabelFaithfulness].Accuracy != 0 {
		t.Fatalf("before -> after: %+v", a.Before)
	}
	if cp := a.Tasks[eval.LabelContextPrecision]; cp.Confusion != (reportlabels.Confusion{FP: 1}) {
		t.Fatalf("context precision after the re-run: %+v", cp)
	}

	// --with-labels applies them to the re-run's verdicts.
	ws, err := labels.Apply(st)
	if err != nil {
		t.Fatal(err)
	}
	info, page, _, err := ws.RunPage(rerun, 0, 10)
	if err != nil || len(page) != 3 {
		t.Fatalf("with labels: %d results, %v", len(page), err)
	}
	if info.Config["human_labels"] == "" {
		t.Fatal("a report with labels does not say so")
	}
	if got := *page[1].Scores[eval.ContextPrecision]; got != 0.5 {
		t.Fatalf("sample 1's precision with its chunk 1 labelled useless: %v, want 0.5", got)
	}
	if got := *page[0].Scores[eval.Faithfulness]; got != 1 {
		t.Fatalf("sample 0's faithfulness: %v", got)
	}
	var js bytes.Buffer
	if _, err := runreport.Write(ws, rerun, runreport.FormatJSON, 5, report.Levels{}, &js); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(js.String(), `"human_labels"`) {
		t.Fatal("the JSON report with labels does not say so")
	}

	// Export, then import the export into a fresh database: the same labels.
	var out bytes.Buffer
	n, err := labels.Export(st, "", &out)
	if err != nil || n != 3 {
		t.Fatalf("export: %d, %v", n, err)
	}
	want := `{"sample":"s0","task":"faithfulness_verdicts","item":"first statement","label":1,"note":"the context says so"}
{"sample":"s1","task":"context_precision_verdict","item":"1","label":0,"note":"off topic"}
{"sample":"s1","task":"faithfulness_verdicts","item":"first statement","label":1,"note":""}
`
	if out.String() != want {
		t.Fatalf("export:\n%s\nwant:\n%s", out.String(), want)
	}
	var byRun bytes.Buffer
	if _, err := labels.Export(st, rerun, &byRun); err != nil || byRun.String() != want {
		t.Fatalf("export of the re-run's labels:\n%s (%v)", byRun.String(), err)
	}
}
