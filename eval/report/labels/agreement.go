package labels

import (
	"slices"
	"strconv"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/internal/show"
)

// Agreement is how well the judge agrees with the human labels of a run:
// per labelled task over the items that have a label, and per metric what
// applying the labels does to the scores. Positive is the value 1. A
// team's criterion is both a task and a metric, under its name.
type Agreement struct {
	Run     string                           `json:"run"`
	Tasks   map[string]*TaskAgreement        `json:"tasks"`
	Metrics map[eval.Metric]*MetricAgreement `json:"metrics"`
	// Criteria are the run's own criteria in their file's order: each is
	// a task (its items labelled under its name) and a metric of both maps.
	Criteria []string `json:"criteria,omitempty"`
	// Before is the same for the run this one re-ran (its parent), when
	// it has one: a prompt edit's effect on the judge, before → after.
	Before *Agreement `json:"before,omitempty"`
}

// TaskAgreement is the judge against the humans on one task.
type TaskAgreement struct {
	// Labelled counts the judged items of the run that have a human label.
	Labelled int `json:"labelled"`
	// Accuracy is the share of them on which the judge gave the human's
	// value; null when none is labelled.
	Accuracy *float64 `json:"accuracy"`
	// Kappa is Cohen's κ = (p_o − p_e)/(1 − p_e); null when nothing is labelled
	// or chance agreement is 1 (one value only), which KappaUndefined then says.
	Kappa          *float64  `json:"kappa"`
	KappaUndefined string    `json:"kappa_undefined,omitempty"`
	Confusion      Confusion `json:"confusion"`
}

// Confusion counts judge (predicted) against human (actual), positive = 1.
type Confusion struct {
	TP int `json:"tp"` // judge 1, human 1
	FP int `json:"fp"` // judge 1, human 0
	TN int `json:"tn"` // judge 0, human 0
	FN int `json:"fn"` // judge 0, human 1
}

// N is the number of items counted.
func (c Confusion) N() int { return c.TP + c.FP + c.TN + c.FN }

// MetricAgreement is what the labels do to one metric's scores.
type MetricAgreement struct {
	// Labelled counts the samples scored on the metric with a labelled item;
	// Disputed those where a label differs from the judge; Changed those whose score changes.
	Labelled int `json:"labelled"`
	Disputed int `json:"disputed"`
	Changed  int `json:"changed"`
	// Mean is the judge's mean over the scored samples, MeanWithLabels the
	// mean with the labels applied (null when none scored).
	Mean           *float64 `json:"mean"`
	MeanWithLabels *float64 `json:"mean_with_labels"`

	scored    int
	sum, with float64
}

// AgreementTally accumulates an Agreement over a run's results one at a
// time (a run is streamed from the store, never held whole).
type AgreementTally struct {
	run    string
	labels map[string]Label
	tasks  map[string]*Confusion
	mets   map[eval.Metric]*MetricAgreement
	crit   []string // the criteria's names, the run's first, then any other a result has
}

// NewAgreementTally starts a tally of run against labels (by item key);
// criteria are the run's criteria, in its file's order.
func NewAgreementTally(run string, labels map[string]Label, criteria ...string) *AgreementTally {
	t := &AgreementTally{run: run, labels: labels, tasks: map[string]*Confusion{}, mets: map[eval.Metric]*MetricAgreement{}}
	for _, task := range LabelTasks {
		t.tasks[task] = &Confusion{}
	}
	for _, m := range eval.AllMetrics {
		t.mets[m] = &MetricAgreement{}
	}
	for _, name := range criteria {
		t.criterion(name)
	}
	return t
}

// criterion makes room for a criterion's figures, once.
func (t *AgreementTally) criterion(name string) {
	if _, ok := t.tasks[name]; ok {
		return
	}
	t.crit = append(t.crit, name)
	t.tasks[name] = &Confusion{}
	t.mets[eval.Metric(name)] = &MetricAgreement{}
}

// Add counts one result.
func (t *AgreementTally) Add(r *eval.Result) {
	if r == nil {
		return
	}
	for _, name := range r.CriteriaNames() {
		t.criterion(name)
	}
	labelled := map[eval.Metric]bool{}
	disputed := map[eval.Metric]bool{}
	for _, it := range Items(r) {
		l, ok := t.labels[it.Key]
		if !ok {
			continue
		}
		labelled[it.Metric] = true
		c := t.tasks[it.Task]
		switch {
		case it.Judge == 1 && l.Value == 1:
			c.TP++
		case it.Judge == 1:
			c.FP++
		case l.Value == 0:
			c.TN++
		default:
			c.FN++
		}
		if it.Judge != l.Value {
			disputed[it.Metric] = true
		}
	}
	applied, changed := ApplyLabels(r, t.labels)
	for _, m := range eval.Scored(eval.AllMetrics, t.crit) {
		ma := t.mets[m]
		s, ok := r.Score(m)
		if !ok {
			continue
		}
		w, _ := applied.Score(m)
		ma.scored++
		ma.sum += s
		ma.with += w
		if labelled[m] {
			ma.Labelled++
		}
		if disputed[m] {
			ma.Disputed++
		}
	}
	for _, m := range changed {
		t.mets[m].Changed++
	}
}

// Agreement is the tally's figures.
func (t *AgreementTally) Agreement() *Agreement {
	a := &Agreement{Run: t.run, Tasks: map[string]*TaskAgreement{}, Metrics: map[eval.Metric]*MetricAgreement{}, Criteria: slices.Clone(t.crit)}
	for task, c := range t.tasks {
		a.Tasks[task] = taskFigures(*c)
	}
	for m, ma := range t.mets {
		out := *ma
		if ma.scored > 0 {
			mean, with := ma.sum/float64(ma.scored), ma.with/float64(ma.scored)
			out.Mean, out.MeanWithLabels = &mean, &with
		}
		a.Metrics[m] = &out
	}
	return a
}

// taskFigures computes accuracy and Cohen's κ from a confusion matrix.
func taskFigures(c Confusion) *TaskAgreement {
	ta := &TaskAgreement{Labelled: c.N(), Confusion: c}
	n := float64(c.N())
	if n == 0 {
		return ta
	}
	po := float64(c.TP+c.TN) / n
	ta.Accuracy = &po
	// In whole numbers (n² times p_o − p_e and 1 − p_e), so that a κ of 0
	// is 0, not -3e-16.
	N := c.N()
	e := (c.TP+c.FP)*(c.TP+c.FN) + (c.TN+c.FN)*(c.TN+c.FP)
	if e >= N*N {
		ta.KappaUndefined = "judge and humans gave one and the same value to every item, so chance agreement is 1 and κ is 0/0"
		return ta
	}
	k := float64(N*(c.TP+c.TN)-e) / float64(N*N-e)
	ta.Kappa = &k
	return ta
}

// AgreementTable is an agreement as the cells of its two tables, what
// `ragscope agreement` and the TUI's panel both print: a row per task
// (with "before<arrow>after" for a re-run), a row per metric, and the
// notes on kappas that are not defined.
type AgreementTable struct {
	Tasks    [][]string // task, labelled, accuracy, kappa, tp, fp, tn, fn
	Labelled []bool     // per task row: it has labels
	Metrics  [][]string // metric, labelled, disputed, changed, mean, with labels
	Notes    []string
}

// Table writes the agreement's cells; arrow joins a re-run's before and
// after ("->" in plain text).
func (a *Agreement) Table(arrow string) AgreementTable {
	var out AgreementTable
	for _, task := range append(slices.Clone(LabelTasks), a.Criteria...) {
		t := a.Tasks[task]
		if t == nil {
			continue
		}
		var b *TaskAgreement
		if a.Before != nil {
			b = a.Before.Tasks[task]
		}
		both := func(f func(*TaskAgreement) string) string {
			if b == nil {
				return f(t)
			}
			return f(b) + arrow + f(t)
		}
		c := t.Confusion
		out.Tasks = append(out.Tasks, []string{task,
			both(func(x *TaskAgreement) string { return strconv.Itoa(x.Labelled) }),
			both(func(x *TaskAgreement) string { return show.Score(x.Accuracy) }),
			both(func(x *TaskAgreement) string { return show.Score(x.Kappa) }),
			strconv.Itoa(c.TP), strconv.Itoa(c.FP), strconv.Itoa(c.TN), strconv.Itoa(c.FN)})
		out.Labelled = append(out.Labelled, t.Labelled > 0)
		if t.KappaUndefined != "" && t.Labelled > 0 {
			out.Notes = append(out.Notes, task+": kappa n/a: "+t.KappaUndefined)
		}
	}
	for _, m := range eval.Scored(eval.AllMetrics, a.Criteria) {
		ma := a.Metrics[m]
		if ma == nil {
			continue
		}
		out.Metrics = append(out.Metrics, []string{string(m), strconv.Itoa(ma.Labelled), strconv.Itoa(ma.Disputed),
			strconv.Itoa(ma.Changed), show.Score(ma.Mean), show.Score(ma.MeanWithLabels)})
	}
	return out
}
