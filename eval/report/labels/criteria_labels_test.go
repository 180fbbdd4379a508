package labels

import (
	"slices"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
)

// critLabelFixture is five samples scored on four criteria and the human
// labels of some of their items: polite (yes_no) labelled on every sample,
// form (checklist) on one item, tone (rubric, which has no yes/no to label)
// and no_hr (an exact check) on one sample each.
func critLabelFixture() ([]*eval.Result, map[string]Label) {
	f := func(v float64) *float64 { return &v }
	level := func(l int) *int { return &l }
	var rs []*eval.Result
	labels := map[string]Label{}
	put := func(r *eval.Result, task, item string, v int) {
		sk := ResultSampleKey(r)
		k := LabelKey(sk, task, item)
		labels[k] = Label{Key: k, SampleKey: sk, Sample: r.ID, Task: task, Item: item, Value: v}
	}
	// polite: judge 1,1,0,0,0 against human 1,1,0,1,0: TP TP TN FN TN.
	judge, human := []int{1, 1, 0, 0, 0}, []int{1, 1, 0, 1, 0}
	for i := range judge {
		id := string(rune('a' + i))
		r := &eval.Result{ID: id, Question: "q " + id, Answer: "a " + id,
			Scores: map[eval.Metric]*float64{"polite": f(float64(judge[i]))},
			Status: map[eval.Metric]eval.Status{"polite": eval.StatusOK},
			Criteria: map[string]*criteria.Trace{"polite": {Draws: []criteria.Draw{
				{Verdict: judge[i], Reason: "r"}, {Verdict: judge[i], Reason: "r"}, {Verdict: 1 - judge[i], Reason: "r"}}}}}
		put(r, "polite", eval.CriterionVerdict, human[i])
		rs = append(rs, r)
	}
	a := rs[0]
	a.Scores["form"], a.Status["form"] = f(0.5), eval.StatusOK
	a.Criteria["form"] = &criteria.Trace{Items: []criteria.ItemVerdict{{Item: "Names the form", Verdict: 1}, {Item: "Names the approver", Verdict: 0}}}
	put(a, "form", "Names the approver", 1)
	a.Scores["tone"], a.Status["tone"] = f(0.5), eval.StatusOK
	a.Criteria["tone"] = &criteria.Trace{Level: level(2), Description: "partly"}
	put(a, "tone", eval.CriterionVerdict, 1)
	b := rs[1]
	b.Scores["no_hr"], b.Status["no_hr"] = f(0), eval.StatusOK
	b.Criteria["no_hr"] = &criteria.Trace{Reason: "1 forbidden value found", Matches: []criteria.Match{{Start: 0, End: 1, Text: "a", What: "a"}}}
	put(b, "no_hr", eval.CriterionVerdict, 1)
	return rs, labels
}

func TestItemsOfCriteria(t *testing.T) {
	rs, _ := critLabelFixture()
	type item struct {
		task, text string
		judge, pos int
	}
	for _, tc := range []struct {
		name string
		r    *eval.Result
		want []item
	}{
		// A checklist's items, then a yes_no's verdict, by name; a rubric
		// has none.
		{"checklist, rubric and yes_no", rs[0], []item{{"form", "Names the form", 1, 0}, {"form", "Names the approver", 0, 1}, {"polite", "verdict", 1, 0}}},
		{"exact check", rs[1], []item{{"no_hr", "verdict", 0, 0}, {"polite", "verdict", 1, 0}}},
		{"a no", rs[2], []item{{"polite", "verdict", 0, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Items(tc.r)
			if len(got) != len(tc.want) {
				t.Fatalf("items %+v, want %+v", got, tc.want)
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Task != w.task || g.Metric != eval.Metric(w.task) || g.Text != w.text || g.Judge != w.judge || g.Pos != w.pos {
					t.Errorf("item %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
	// A criterion that did not score has nothing to label.
	r := rs[2]
	r.Status["polite"], r.Scores["polite"] = eval.StatusParseError, nil
	if got := Items(r); len(got) != 0 {
		t.Errorf("a criterion that failed has items %+v", got)
	}
}

// κ per criterion, by hand: polite n=5, p_o=4/5, judge 1: 2/5, human 1:
// 3/5, p_e=(6+6)/25=12/25, κ=(20/25-12/25)/(13/25)=8/13.
func TestAgreementOfCriteria(t *testing.T) {
	rs, labels := critLabelFixture()
	tally := NewAgreementTally("run-c", labels, "polite", "tone", "form", "no_hr")
	for _, r := range rs {
		tally.Add(r)
	}
	a := tally.Agreement()
	for _, tc := range []struct {
		task  string
		conf  Confusion
		acc   float64
		kappa *float64
	}{
		{"polite", Confusion{TP: 2, TN: 2, FN: 1}, 0.8, ptr(8.0 / 13)},
		{"form", Confusion{FN: 1}, 0, ptr(0)},
		{"no_hr", Confusion{FN: 1}, 0, ptr(0)},
		{"tone", Confusion{}, -1, nil},
	} {
		got := a.Tasks[tc.task]
		if got == nil {
			t.Errorf("%s: no figures", tc.task)
			continue
		}
		if got.Confusion != tc.conf {
			t.Errorf("%s: confusion %+v, want %+v", tc.task, got.Confusion, tc.conf)
		}
		if tc.acc >= 0 && !near(got.Accuracy, tc.acc) || tc.acc < 0 && got.Accuracy != nil {
			t.Errorf("%s: accuracy %v, want %v", tc.task, got.Accuracy, tc.acc)
		}
		if tc.kappa == nil && got.Kappa != nil || tc.kappa != nil && !near(got.Kappa, *tc.kappa) {
			t.Errorf("%s: kappa %v, want %v", tc.task, got.Kappa, tc.kappa)
		}
	}
	// polite: the labels make d a yes: mean 2/5 -> 3/5, one sample changed.
	if p := a.Metrics["polite"]; p.Labelled != 5 || p.Disputed != 1 || p.Changed != 1 || !near(p.Mean, 0.4) || !near(p.MeanWithLabels, 0.6) {
		t.Errorf("polite figures %+v", p)
	}
	// form: the approver named after all: 0.5 -> 1.
	if fm := a.Metrics["form"]; fm.Labelled != 1 || fm.Changed != 1 || !near(fm.MeanWithLabels, 1) {
		t.Errorf("form figures %+v", fm)
	}
	// The tables list the criteria after the metrics' tasks, in file order.
	tab := a.Table(" -> ")
	var tasks, metrics []string
	for _, row := range tab.Tasks[len(LabelTasks):] {
		tasks = append(tasks, row[0])
	}
	for _, row := range tab.Metrics[len(eval.AllMetrics):] {
		metrics = append(metrics, row[0])
	}
	want := []string{"polite", "tone", "form", "no_hr"}
	if !slices.Equal(tasks, want) || !slices.Equal(metrics, want) {
		t.Errorf("table rows: tasks %v, metrics %v, want %v", tasks, metrics, want)
	}
	if row := tab.Tasks[len(LabelTasks)]; row[3] != "0.615" {
		t.Errorf("polite's row %v: kappa %q, want 0.615", row, row[3])
	}
}

func TestApplyLabelsToCriteria(t *testing.T) {
	rs, labels := critLabelFixture()
	a := rs[0]
	got, changed := ApplyLabels(a, labels)
	if len(changed) != 1 || changed[0] != "form" || !near(got.Scores["form"], 1) || got.Criteria["form"].Items[1].Verdict != 1 {
		t.Fatalf("changed %v, form %v", changed, *got.Scores["form"])
	}
	if a.Criteria["form"].Items[1].Verdict != 0 || *a.Scores["form"] != 0.5 {
		t.Fatal("ApplyLabels changed its input's checklist")
	}
	got, changed = ApplyLabels(rs[1], labels)
	if len(changed) != 1 || changed[0] != "no_hr" || !near(got.Scores["no_hr"], 1) || *rs[1].Scores["no_hr"] != 0 {
		t.Fatalf("changed %v, no_hr %v", changed, *got.Scores["no_hr"])
	}
}

func TestCriterionTasks(t *testing.T) {
	for _, tc := range []struct {
		task string
		want bool
	}{
		{"polite", true},
		{"cites_policy2", true},
		{eval.LabelFaithfulness, false},
		{"faithfulness_statements", false}, // a judge task, no criterion's name
		{"Polite", false},
		{"", false},
	} {
		if got := IsCriterionTask(tc.task); got != tc.want {
			t.Errorf("IsCriterionTask(%q) = %v, want %v", tc.task, got, tc.want)
		}
	}
	if err := CheckLabelValue("polite", 1); err != nil {
		t.Errorf("a criterion's label refused: %v", err)
	}
	if err := CheckLabelValue("Polite", 1); err == nil {
		t.Error("a task no criterion can be named was accepted")
	}
}

func ptr(v float64) *float64 { return &v }
