// Package labels holds the human labels of judged items for the CLI and
// the TUI: the label file format, the judge's agreement with them, a store
// that applies them, and the TUI's label host.
package labels

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	reportlabels "github.com/ragscope/ragscope/eval/report/labels"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/tui"
)

// Line is one line of a label file, the public line format:
// {"sample": "<id, or index when the dataset has no ids>", "task": TASK,
// "item": "<statement, chunk rank, reference statement or question>",
// "label": 0 or 1, "note": "…"}.
type Line struct {
	Sample string `json:"sample"`
	Task   string `json:"task"`
	Item   string `json:"item"`
	Label  int    `json:"label"`
	Note   string `json:"note"`
	// Line is the line's number in its file, for messages.
	Line int `json:"-"`
}

// maxLine is the longest line a label file may have: a label's note
// and item are short texts, so a longer line is another kind of file.
const maxLine = 16 << 20

// maxErrors bounds the errors a bad label file reports.
const maxErrors = 20

// Parse reads a label file (JSON Lines; blank lines skipped). The
// error names the file and line of each bad line, and is an exit.UsageError:
// nothing is imported from a file with a bad line.
func Parse(name string, r io.Reader) ([]Line, error) {
	var (
		out  []Line
		errs []string
		n    int
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		n++
		b := bytes.TrimSpace(sc.Bytes())
		if n == 1 {
			b = bytes.TrimPrefix(b, []byte("\ufeff"))
		}
		if len(b) == 0 {
			continue
		}
		l, err := parseLine(b)
		if err != nil {
			if len(errs) < maxErrors {
				errs = append(errs, fmt.Sprintf("%s:%d: %v", name, n, err))
			} else if len(errs) == maxErrors {
				errs = append(errs, "… (more bad lines not shown)")
			}
			continue
		}
		l.Line = n
		out = append(out, l)
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, exit.Usagef("%s:%d: the line is longer than %d MiB, the most a label line may hold (a label is a small JSON object per line): is this a label file?", name, n+1, maxLine>>20)
	} else if err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, n+1, err)
	}
	if len(errs) > 0 {
		return nil, exit.Usagef("%s", strings.Join(errs, "\n"))
	}
	return out, nil
}

func parseLine(b []byte) (Line, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return Line{}, fmt.Errorf("not a JSON object: %v", err)
	}
	var l Line
	str := func(field string, dst *string, required bool) error {
		v, ok := raw[field]
		if !ok || string(v) == "null" {
			if required {
				return fmt.Errorf("%q is missing", field)
			}
			return nil
		}
		if err := json.Unmarshal(v, dst); err != nil {
			return fmt.Errorf("%q must be a string", field)
		}
		return nil
	}
	if v, ok := raw["sample"]; ok && len(v) > 0 && v[0] != '"' {
		// An index may come as a number; the contract writes a string.
		var i int
		if err := json.Unmarshal(v, &i); err != nil || i < 0 {
			return l, errors.New(`"sample" must be a string: the sample's id, or its index when the dataset has no ids`)
		}
		l.Sample = strconv.Itoa(i)
	} else if err := str("sample", &l.Sample, true); err != nil {
		return l, err
	}
	if err := cmp.Or(str("task", &l.Task, true), str("item", &l.Item, true), str("note", &l.Note, false)); err != nil {
		return l, err
	}
	v, ok := raw["label"]
	if !ok {
		return l, errors.New(`"label" is missing`)
	}
	switch string(v) {
	case "0", "1":
		l.Label = int(v[0] - '0')
	default:
		return l, errors.New(`"label" must be 0 or 1`)
	}
	if _, ok := reportlabels.TaskMetric(l.Task); !ok && !reportlabels.IsCriterionTask(l.Task) {
		return l, fmt.Errorf(`"task": %q is not one of %s, nor a criterion's name`, l.Task, strings.Join(reportlabels.LabelTasks, ", "))
	}
	if l.Sample == "" {
		return l, errors.New(`"sample" is empty`)
	}
	if l.Item == "" {
		return l, errors.New(`"item" is empty`)
	}
	return l, nil
}

// Unmatched is a label line that names nothing in the run.
type Unmatched struct {
	Line int
	Why  string
}

// ImportReport is what Import did.
type ImportReport struct {
	Run                       string
	Added, Changed, Unchanged int
	Unmatched                 []Unmatched
}

// Labeller is who a process's labels are by: $USER, else $LOGNAME.
func Labeller() string { return cmp.Or(os.Getenv("USER"), os.Getenv("LOGNAME")) }

// Import stores the lines' labels against the content of run ref's samples
// they name, keyed by what they judge. A line that matches nothing is
// reported, never dropped; a label stored alike already is left, so
// importing a file twice changes nothing.
func Import(st cache.Store, ref string, lines []Line, by string, now time.Time) (ImportReport, error) {
	info, _, _, err := st.RunPage(ref, 0, 0)
	if err != nil {
		return ImportReport{}, exit.UsageError{Err: err}
	}
	rep := ImportReport{Run: info.ID}
	bySample := map[string][]int{}
	for i, l := range lines {
		bySample[l.Sample] = append(bySample[l.Sample], i)
	}
	matched := make([]bool, len(lines))
	present := map[string]bool{}
	wanted := map[string]reportlabels.Label{}
	var order []string
	err = store.Each(st, info.ID, nil)(func(r *eval.Result) error {
		idx := bySample[reportlabels.SampleRef(r)]
		if len(idx) == 0 {
			return nil
		}
		present[reportlabels.SampleRef(r)] = true
		items := reportlabels.Items(r)
		sk := reportlabels.ResultSampleKey(r)
		for _, i := range idx {
			l := lines[i]
			it, ok := reportlabels.FindItem(items, l.Task, l.Item)
			if !ok {
				continue
			}
			matched[i] = true
			if _, seen := wanted[it.Key]; !seen {
				order = append(order, it.Key)
			}
			// A later line on the same item wins, as in any JSON Lines
			// log of edits.
			wanted[it.Key] = reportlabels.Label{Key: it.Key, SampleKey: sk, Sample: l.Sample, Task: l.Task, Item: l.Item,
				Value: l.Label, Note: l.Note, By: by, UpdatedAt: now.UTC()}
		}
		return nil
	})
	if err != nil {
		return rep, err
	}
	for i, l := range lines {
		if !matched[i] {
			rep.Unmatched = append(rep.Unmatched, Unmatched{Line: l.Line, Why: unmatchedWhy(info, l, present[l.Sample])})
		}
	}
	old, err := st.Labels(order)
	if err != nil {
		return rep, err
	}
	var put []reportlabels.Label
	for _, k := range order {
		l := wanted[k]
		switch o, ok := old[k]; {
		case ok && o.Same(l):
			rep.Unchanged++
			continue
		case ok:
			rep.Changed++
		default:
			rep.Added++
		}
		put = append(put, l)
	}
	return rep, st.PutLabels(put)
}

// unmatchedWhy says what a line that matched nothing got wrong: the sample,
// the criterion or the item.
func unmatchedWhy(info report.RunInfo, l Line, found bool) string {
	runID := info.ID
	crit := reportlabels.IsCriterionTask(l.Task)
	if names := info.Criteria.Names(); crit && !slices.Contains(names, l.Task) {
		has := "no criteria"
		if len(names) > 0 {
			has = "the criteria " + strings.Join(names, ", ")
		}
		return fmt.Sprintf("%q is neither a metric's task (%s) nor a criterion of run %s, which scored %s", l.Task, strings.Join(reportlabels.LabelTasks, ", "), runID, has)
	}
	if !found {
		return fmt.Sprintf("no sample %q in run %s (a sample is named by its id, or by its index when it has none)", l.Sample, runID)
	}
	if crit {
		return fmt.Sprintf("sample %q of run %s has no item %q of a criterion %s (items: %q for a yes_no or an exact check, a checklist's item; a rubric has none), or the criterion did not score",
			l.Sample, runID, l.Item, l.Task, eval.CriterionVerdict)
	}
	what := cmp.Or(itemNames[l.Task], "item")
	return fmt.Sprintf("sample %q of run %s has no %s %s %q (or it did not score)", l.Sample, runID, l.Task, what, l.Item)
}

// itemNames are what a task's items are, as a message names them.
var itemNames = map[string]string{
	eval.LabelFaithfulness:       "statement",
	eval.LabelContextPrecision:   "chunk rank",
	eval.LabelContextUtilization: "chunk rank",
	eval.LabelContextRecall:      "reference statement",
	eval.LabelAnswerRelevancy:    "generated question",
}

// Export writes labels in the line format, one per line, sorted; with
// ref set, only the labels of run ref's items, under that run's sample ids.
func Export(st cache.Store, ref string, w io.Writer) (int, error) {
	all, err := st.Labels(nil)
	if err != nil {
		return 0, err
	}
	var ls []reportlabels.Label
	if ref == "" {
		ls = slices.Collect(maps.Values(all))
	} else {
		info, _, _, err := st.RunPage(ref, 0, 0)
		if err != nil {
			return 0, exit.UsageError{Err: err}
		}
		seen := map[string]bool{}
		err = store.Each(st, info.ID, nil)(func(r *eval.Result) error {
			for _, it := range reportlabels.Items(r) {
				if l, ok := all[it.Key]; ok && !seen[it.Key] {
					seen[it.Key] = true
					l.Sample = reportlabels.SampleRef(r)
					ls = append(ls, l)
				}
			}
			return nil
		})
		if err != nil {
			return 0, err
		}
	}
	cache.SortLabels(ls)
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, l := range ls {
		if err := enc.Encode(Line{Sample: l.Sample, Task: l.Task, Item: l.Item, Label: l.Value, Note: l.Note}); err != nil {
			return 0, err
		}
	}
	return len(ls), bw.Flush()
}

// Agreement is the judge's agreement with the human labels on run ref,
// and on the run it re-ran (Before) when that is still stored.
func Agreement(st cache.Store, ref string) (*reportlabels.Agreement, error) {
	info, _, _, err := st.RunPage(ref, 0, 0)
	if err != nil {
		return nil, exit.UsageError{Err: err}
	}
	labels, err := st.Labels(nil)
	if err != nil {
		return nil, err
	}
	a, err := tallyAgreement(st, info, labels)
	if err != nil {
		return nil, err
	}
	if info.Parent != "" {
		if parent, _, _, err := st.RunPage(info.Parent, 0, 0); err == nil {
			if a.Before, err = tallyAgreement(st, parent, labels); err != nil {
				return nil, err
			}
		}
	}
	return a, nil
}

func tallyAgreement(st cache.Store, info report.RunInfo, labels map[string]reportlabels.Label) (*reportlabels.Agreement, error) {
	t := reportlabels.NewAgreementTally(info.ID, labels, info.Criteria.Names()...)
	err := store.Each(st, info.ID, nil)(func(r *eval.Result) error {
		t.Add(r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return t.Agreement(), nil
}

// Apply is st with the human labels applied to every result it reads
// (report --with-labels): each labelled item takes the human's value and its
// metric is rescored by the metric's formula. Writes go to st unchanged.
func Apply(st cache.Store) (cache.Store, error) {
	labels, err := st.Labels(nil)
	if err != nil {
		return nil, err
	}
	return labelledStore{Store: st, labels: labels}, nil
}

type labelledStore struct {
	cache.Store
	labels map[string]reportlabels.Label
}

// withLabelsNote marks a report whose scores are not the judge's alone.
const withLabelsNote = "applied: labelled items carry the human's value and their metrics are rescored (report --with-labels)"

func (s labelledStore) note(info report.RunInfo) report.RunInfo {
	cfg := make(map[string]string, len(info.Config)+1)
	maps.Copy(cfg, info.Config)
	cfg["human_labels"] = withLabelsNote
	info.Config = cfg
	return info
}

func (s labelledStore) apply(rs []*eval.Result) []*eval.Result {
	out := make([]*eval.Result, len(rs))
	for i, r := range rs {
		out[i], _ = reportlabels.ApplyLabels(r, s.labels)
	}
	return out
}

func (s labelledStore) Run(ref string) (report.RunInfo, []*eval.Result, error) {
	info, rs, err := s.Store.Run(ref)
	return s.note(info), s.apply(rs), err
}

func (s labelledStore) RunPage(ref string, from, limit int) (report.RunInfo, []*eval.Result, int, error) {
	info, page, next, err := s.Store.RunPage(ref, from, limit)
	return s.note(info), s.apply(page), next, err
}

// Host is the interface's tui.LabelHost over a store: it labels for
// any run, live or stored, whatever the judge, as long as the database is
// at hand (through the holder when another process has it).
type Host struct {
	Store cache.Store
	By    string // who labels ($USER)
}

var _ tui.LabelHost = Host{}

func (h Host) Labels(r *eval.Result) (map[string]reportlabels.Label, error) {
	items := reportlabels.Items(r)
	keys := make([]string, len(items))
	for i, it := range items {
		keys[i] = it.Key
	}
	return h.Store.Labels(keys)
}

func (h Host) SetLabel(r *eval.Result, it reportlabels.Item, value int, note string) (reportlabels.Label, error) {
	if value < 0 {
		_, err := h.Store.DeleteLabels([]string{it.Key})
		return reportlabels.Label{}, err
	}
	l := reportlabels.Label{Key: it.Key, SampleKey: reportlabels.ResultSampleKey(r), Sample: reportlabels.SampleRef(r), Task: it.Task, Item: it.Text,
		Value: value, Note: note, By: h.By, UpdatedAt: time.Now().UTC()}
	return l, h.Store.PutLabels([]reportlabels.Label{l})
}

// Marks reads the run once, and only when some label is stored: a run
// nobody labelled costs one lookup.
func (h Host) Marks(runID string) (map[int]uint8, error) {
	marks := map[int]uint8{}
	if runID == "" {
		return marks, nil
	}
	all, err := h.Store.Labels(nil)
	if err != nil || len(all) == 0 {
		return marks, err
	}
	samples := make(map[string]bool, len(all))
	for _, l := range all {
		samples[l.SampleKey] = true
	}
	err = store.Each(h.Store, runID, nil)(func(r *eval.Result) error {
		if !samples[reportlabels.ResultSampleKey(r)] {
			return nil
		}
		if mark := tui.MarkOf(reportlabels.Items(r), all); mark != 0 {
			marks[r.Index] = mark
		}
		return nil
	})
	return marks, err
}

func (h Host) Agreement(runID string) (*reportlabels.Agreement, error) {
	return Agreement(h.Store, runID)
}
