// Package labels holds human labels of a run's judgements: their keys, the
// items they correct, the scores with them applied and the judge's agreement.
package labels

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/prompts"
)

// LabelTasks lists the labelled tasks in the order of AllMetrics.
var LabelTasks = func() []string {
	var out []string
	for _, m := range eval.AllMetrics {
		d := eval.Def(m)
		if d.Labels != nil {
			out = append(out, d.Labels.Task)
		}
	}
	return out
}()

// TaskMetric is the metric whose score a labelled task feeds.
func TaskMetric(task string) (eval.Metric, bool) {
	for _, m := range eval.AllMetrics {
		d := eval.Def(m)
		if d.Labels != nil && d.Labels.Task == task {
			return d.Name, true
		}
	}
	return "", false
}

// IsJudgeTask says name is a judge task's, which a criterion may not be
// called: its labels are filed under its name.
func IsJudgeTask(name string) bool { return slices.Contains(prompts.Tasks, name) }

// IsCriterionTask says task may name one of a team's criteria in a label
// (no judge task is a criterion's name, so a misspelt metric task is
// still refused).
func IsCriterionTask(task string) bool { return !IsJudgeTask(task) && criteria.ValidName(task) }

// Label is a human's verdict on one judged item: the value (0 or 1) the
// item should have had. It is keyed by what it judges (the sample's
// inputs, the task and the item), not by run, so it stays attached across
// re-runs, prompt edits and judge models.
type Label struct {
	// Key is LabelKey of the item; SampleKey is SampleKey of its sample.
	Key       string `json:"key"`
	SampleKey string `json:"sample_key"`
	// Sample is the sample's id, or its index when it had none, when the
	// label was made: what an export writes.
	Sample string `json:"sample"`
	Task   string `json:"task"`
	Item   string `json:"item"`
	Value  int    `json:"label"`
	Note   string `json:"note,omitempty"`
	// By is who labelled it ($USER of the process that stored it).
	By        string    `json:"by,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Same reports whether two labels say the same thing (value and note),
// whoever made them and whenever: importing a label again changes nothing.
func (l Label) Same(o Label) bool { return l.Value == o.Value && l.Note == o.Note }

// SampleKey hashes a sample's inputs (question, answer, contexts in order,
// reference): the content a label is attached to.
func SampleKey(question, answer string, contexts []string, reference string) string {
	h := sha256.New()
	writeField(h, "ragscope-sample/1")
	writeField(h, question)
	writeField(h, answer)
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(contexts)))
	h.Write(n[:])
	for _, c := range contexts {
		writeField(h, c)
	}
	writeField(h, reference)
	return hex.EncodeToString(h.Sum(nil))
}

// LabelKey is the key of the label of one item of a sample: the task and
// the item's text (a chunk's rank in decimal) under the sample's key.
func LabelKey(sampleKey, task, item string) string {
	h := sha256.New()
	writeField(h, "ragscope-label/1")
	writeField(h, sampleKey)
	writeField(h, task)
	writeField(h, item)
	return hex.EncodeToString(h.Sum(nil))
}

// writeField writes s length-prefixed, so that no two field lists hash alike.
func writeField(h interface{ Write([]byte) (int, error) }, s string) {
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}

// ResultSampleKey is SampleKey of a result's inputs.
func ResultSampleKey(r *eval.Result) string {
	return SampleKey(r.Question, r.Answer, r.Contexts, r.Reference)
}

// SampleRef names a sample in the label line format: its id, else its index.
func SampleRef(r *eval.Result) string {
	return cmp.Or(r.ID, strconv.Itoa(r.Index))
}

// Item is one judged item of a result that a human can label.
type Item struct {
	Task   string
	Metric eval.Metric
	// Text is the item as the label line format writes it: the statement,
	// the chunk's rank, the reference statement, the generated question.
	Text string
	// Judge is the judge's value: the verdict, the attribution, the flag.
	Judge int
	// Pos is the item's position in its trace (statement, chunk,
	// classification or question index).
	Pos int
	Key string
}

// Items lists a result's labellable items, metric by metric, then
// criterion by criterion by name; only those that scored have them (a
// failed metric's partial trace has no verdict a label could correct).
func Items(r *eval.Result) []Item {
	if r == nil {
		return nil
	}
	sk := ResultSampleKey(r)
	var out []Item
	add := func(task string, m eval.Metric, pos int, text string, judge int) {
		out = append(out, Item{Task: task, Metric: m, Text: text, Judge: judge, Pos: pos, Key: LabelKey(sk, task, text)})
	}
	for _, m := range eval.AllMetrics {
		d := eval.Def(m)
		if d.Labels == nil || r.Status[d.Name] != eval.StatusOK {
			continue
		}
		for i, it := range d.Labels.Items(r) {
			add(d.Labels.Task, d.Name, i, it.Text, it.Value)
		}
	}
	// A criterion's items follow, under its name as their task.
	for _, name := range r.CriteriaNames() {
		for i, it := range eval.CriterionLabelItems(r, name) {
			add(name, eval.Metric(name), i, it.Text, it.Value)
		}
	}
	return out
}

// FindItem finds the item of task whose text is item in the result.
func FindItem(items []Item, task, item string) (Item, bool) {
	for _, it := range items {
		if it.Task == task && it.Text == item {
			return it, true
		}
	}
	return Item{}, false
}

// CheckLabelValue says what is wrong with a label's task or value, or nil.
func CheckLabelValue(task string, value int) error {
	if !slices.Contains(LabelTasks, task) && !IsCriterionTask(task) {
		return fmt.Errorf("task %q is not one of %s, nor a criterion's name", task, strings.Join(LabelTasks, ", "))
	}
	if value != 0 && value != 1 {
		return fmt.Errorf(`"label" must be 0 or 1 (got %d)`, value)
	}
	return nil
}

// ApplyLabels returns a copy of r with the human labels (by item key) in
// place of the judge's values, each metric with a label rescored by its own
// formula; changed lists those whose score changed. Without one, r itself.
func ApplyLabels(r *eval.Result, labels map[string]Label) (out *eval.Result, changed []eval.Metric) {
	if r == nil || len(labels) == 0 {
		return r, nil
	}
	touched := map[eval.Metric]bool{}
	values := map[eval.Metric]map[int]int{}
	for _, it := range Items(r) {
		l, ok := labels[it.Key]
		if !ok {
			continue
		}
		if values[it.Metric] == nil {
			values[it.Metric] = map[int]int{}
		}
		values[it.Metric][it.Pos] = l.Value
		if l.Value != it.Judge {
			touched[it.Metric] = true
		}
	}
	if len(touched) == 0 {
		return r, nil
	}
	c := *r
	c.Scores = make(map[eval.Metric]*float64, len(r.Scores))
	maps.Copy(c.Scores, r.Scores)
	rescore := func(m eval.Metric, f func(*eval.Result, map[int]int) float64) {
		if !touched[m] {
			return
		}
		score := f(&c, values[m])
		if old := r.Scores[m]; old == nil || *old != score {
			changed = append(changed, m)
		}
		c.Scores[m] = &score
	}
	for _, m := range eval.AllMetrics {
		if d := eval.Def(m); d.Labels != nil {
			rescore(m, d.Labels.Rescore)
		}
	}
	for _, name := range r.CriteriaNames() {
		rescore(eval.Metric(name), func(c *eval.Result, values map[int]int) float64 {
			return eval.RescoreCriterion(c, name, values)
		})
	}
	return &c, changed
}
