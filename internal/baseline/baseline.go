// Package baseline holds a run's --baseline (a stored run or a JSON report
// file): checked before the run starts, so a bad one costs no judge call,
// and read again into a compact index when it ends.
package baseline

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/diff"
	"github.com/ragscope/ragscope/eval/report/html"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/store"
)

// listed is how many of the changed samples the comparison shows
// in full, the worst falls first.
const listed = 20

// Baseline is a --baseline resolved.
type Baseline struct {
	arg   string // as given
	file  string // a report file, or
	runID string // a stored run
	info  report.RunInfo
	// samples and sum are what the file held when it was checked: it must
	// hold the same when the run ends.
	samples int
	sum     [sha256.Size]byte
	metrics []eval.Metric // compared: the run's that the baseline has
}

// Run is the run compared with the baseline, as resolving and checking
// --baseline needs it.
type Run struct {
	// ID and StartedAt are set when the run is resumed: it is not its own
	// baseline, and latest is a run finished before it started.
	ID        string
	StartedAt time.Time
	// Dataset is the dataset as given, DatasetHash its sha256 ("" unknown):
	// latest is a run of the same dataset when there is one.
	Dataset, DatasetHash string
	DatasetPath          string // absolute
	// Scored are the metrics the run scores; Metrics those it was asked
	// for, as an error names them.
	Scored, Metrics []eval.Metric
	MaxDrop         []report.Threshold // --max-drop: each needs its metric in the baseline
}

// Label names the baseline for a reader.
func (b *Baseline) Label() string {
	if b.file != "" {
		if b.info.ID != "" {
			return fmt.Sprintf("file %s (run %s)", b.file, b.info.ID)
		}
		return "file " + b.file
	}
	return "run " + b.runID
}

// Source is what the baseline was resolved to: its report file, or the
// id of the stored run (latest resolved).
func (b *Baseline) Source() string { return cmp.Or(b.file, b.runID) }

// Prepare resolves and checks --baseline arg for run r, whose runs st
// stores; a problem is a usage error naming --baseline.
func Prepare(st cache.Store, arg string, r Run, stderr io.Writer) (*Baseline, error) {
	b := &Baseline{arg: arg}
	bad := func(format string, args ...any) error {
		return exit.Usagef("--baseline %s: %s", arg, fmt.Sprintf(format, args...))
	}
	if IsFile(arg) {
		b.file = arg
		info, n, sum, err := readBaselineFile(arg, nil, nil)
		if err != nil {
			return nil, bad("%v", err)
		}
		b.info, b.samples, b.sum = info, n, sum
	} else {
		info, err := resolveRun(st, arg, r, stderr)
		if err != nil {
			return nil, exit.UsageError{Err: err}
		}
		b.runID, b.info, b.samples = info.ID, info, info.Samples
	}
	b.metrics = slices.DeleteFunc(slices.Clone(r.Scored), func(m eval.Metric) bool { return !slices.Contains(b.info.Scored(), m) })
	if len(b.metrics) == 0 {
		return nil, bad("it evaluated %s, none of this run's metrics (%s)", cmp.Or(joinMetrics(b.info.Metrics), "no metric"), joinMetrics(r.Metrics))
	}
	for _, th := range r.MaxDrop {
		if !slices.Contains(b.metrics, th.Metric) {
			return nil, exit.Usagef("--max-drop %s: the baseline (%s) did not evaluate %s; drop the threshold or choose another baseline", th.Metric, b.Label(), th.Metric)
		}
	}
	return b, nil
}

// IsFile says --baseline names a report file rather than a stored run: it
// ends in .json or has a directory in it (run ids have neither).
func IsFile(arg string) bool {
	return strings.HasSuffix(strings.ToLower(arg), ".json") || strings.ContainsRune(arg, '/') || strings.ContainsRune(arg, filepath.Separator)
}

// joinMetrics is the comma-separated form of metrics.
func joinMetrics(ms []eval.Metric) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return strings.Join(out, ",")
}

// resolveRun finds the stored run ref names. latest is the newest
// run that finished (not interrupted) before this one started, other than
// this one (a --resume), of the same dataset when there is one, else of
// any, which is said on stderr.
func resolveRun(st cache.Store, ref string, run Run, stderr io.Writer) (report.RunInfo, error) {
	if ref != cache.LatestRun {
		info, _, _, err := st.RunPage(ref, 0, 0)
		if err != nil {
			return info, fmt.Errorf("--baseline %s: %v", ref, err)
		}
		if info.ID == run.ID {
			return info, fmt.Errorf("--baseline %s is the run being resumed; compare with another run", ref)
		}
		return info, nil
	}
	runs, err := st.Runs()
	if err != nil {
		return report.RunInfo{}, fmt.Errorf("--baseline latest: %v", err)
	}
	var other *report.RunInfo
	for i := range runs { // newest first
		r := &runs[i]
		if r.ID == run.ID || r.FinishedAt == nil || r.Cancelled || (!run.StartedAt.IsZero() && !r.StartedAt.Before(run.StartedAt)) {
			continue
		}
		if run.sameDataset(r) {
			return *r, nil
		}
		if other == nil {
			other = r
		}
	}
	if other == nil {
		return report.RunInfo{}, fmt.Errorf("--baseline latest: no run in %s finished before this one; run once without --baseline first, or give a report file (--baseline FILE.json)", st.Path())
	}
	fmt.Fprintf(stderr, "ragscope: --baseline latest: no earlier finished run of %s; comparing with run %s of %s\n",
		sanitize.Line(run.Dataset), sanitize.Line(other.ID), sanitize.Line(other.Dataset))
	return *other, nil
}

// sameDataset says run r evaluated this run's dataset: the same file
// (named alike, or resolving to the same path), or the same bytes.
func (run Run) sameDataset(r *report.RunInfo) bool {
	switch {
	case r.DatasetHash != "" && r.DatasetHash == run.DatasetHash:
		return true
	case r.DatasetPath != "" && run.DatasetPath != "":
		// Where both were recorded: a relative name says nothing of the
		// directory it was run in.
		return r.DatasetPath == run.DatasetPath
	case r.Dataset == run.Dataset:
		return true
	}
	a, errA := filepath.Abs(r.Dataset)
	b, errB := filepath.Abs(run.Dataset)
	return errA == nil && errB == nil && a == b
}

// readBaselineFile reads a report file through: its run record, how many
// samples, the sha256 of its bytes; each (when set) gets every sample,
// decoded in full at the positions full says.
func readBaselineFile(path string, full func(pos int) bool, each func(pos int, r *eval.Result) error) (report.RunInfo, int, [sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := os.Open(path)
	if err != nil {
		return report.RunInfo{}, 0, sum, errors.Unwrap(err)
	}
	defer f.Close()
	h := sha256.New()
	n := 0
	info, err := report.ReadReport(io.TeeReader(f, h), full, func(pos int, r *eval.Result) error {
		n++
		if each != nil {
			return each(pos, r)
		}
		return nil
	})
	copy(sum[:], h.Sum(nil)) // of what was read: a caller that gets an error reads nothing else
	return info, n, sum, err
}

// index reads the baseline again into the index the comparison uses.
func (b *Baseline) index(st cache.Store) (*report.KeyIndex, error) {
	x := report.NewKeyIndex(b.metrics, b.samples)
	if b.file != "" {
		_, n, sum, err := readBaselineFile(b.file, nil, func(_ int, r *eval.Result) error {
			x.Add(r)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", b.file, err)
		}
		if n != b.samples || !bytes.Equal(sum[:], b.sum[:]) {
			return nil, fmt.Errorf("%s changed while the run was evaluated (it is not the file checked when the run started)", b.file)
		}
		return x, nil
	}
	err := store.Each(st, b.runID, nil)(func(r *eval.Result) error {
		x.Add(r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("run %s: %v", b.runID, err)
	}
	return x, nil
}

// results reads the baseline's samples at the pairs' positions in full,
// keyed by position.
func (b *Baseline) results(st cache.Store, pairs []report.ChangedPair) (map[int]*eval.Result, error) {
	out := make(map[int]*eval.Result, len(pairs))
	if b.file != "" {
		want := map[int]bool{}
		for _, p := range pairs {
			want[p.BeforePos] = true
		}
		_, _, _, err := readBaselineFile(b.file, func(pos int) bool { return want[pos] }, func(pos int, r *eval.Result) error {
			if want[pos] {
				out[pos] = r
			}
			return nil
		})
		return out, err
	}
	for _, p := range pairs {
		r, err := store.Result(st, b.runID, p.BeforeIndex)
		if err != nil {
			return nil, err
		}
		out[p.BeforePos] = r
	}
	return out, nil
}

// Comparison starts the comparison of the run with the baseline, or, when
// the baseline cannot be read any more, one whose checks cannot gate.
func (b *Baseline) Comparison(st cache.Store, g report.BaselineGate) *report.Comparison {
	x, err := b.index(st)
	if err != nil {
		return report.UnreadableComparison(err, g)
	}
	return report.NewComparison(x, g, listed)
}

// Diff is the comparison as a RunDiff, with the listed samples (the worst
// changes) read again in full from both sides.
func (b *Baseline) Diff(st cache.Store, runID string, c *report.Comparison) (*report.RunDiff, error) {
	d := c.Diff()
	listed := c.Listed()
	if len(listed) == 0 {
		return d, nil
	}
	before, err := b.results(st, listed)
	if err != nil {
		return d, fmt.Errorf("reading the baseline's changed samples: %v", err)
	}
	for _, p := range listed {
		rb, err := store.Result(st, runID, p.AfterIndex)
		if err != nil {
			return d, err
		}
		ra := before[p.BeforePos]
		if ra == nil {
			return d, fmt.Errorf("the baseline has no sample at position %d any more", p.BeforePos)
		}
		sd, _ := report.DiffSample(c.Metrics(), ra, rb)
		d.Samples = append(d.Samples, sd)
	}
	return d, nil
}

// Write prints the comparison with the baseline: what was matched, the
// means before and after, and the worst changed samples with their
// changed judgements.
func (b *Baseline) Write(w io.Writer, c *report.Comparison, d *report.RunDiff, derr error) {
	fmt.Fprintf(w, "baseline: %s\n", sanitize.Line(b.Label()))
	if err := c.Err(); err != nil {
		fmt.Fprintf(w, "  not compared: %s\n", sanitize.Line(err.Error()))
		return
	}
	n, withID := c.BaselineSamples()
	fmt.Fprintf(w, "  %d samples shared (%d by id, %d by content); %d of this run's samples are not in the baseline, %d of the baseline's not in this run\n",
		d.Shared, d.ByID, d.ByContent, d.Unmatched, n-d.Shared)
	if d.Shared == 0 && withID < n {
		fmt.Fprintln(w, "  samples without an id match only when question, answer, contexts and reference are all unchanged: give the dataset an id column to compare changed answers")
	}
	if d.Shared == 0 {
		return
	}
	diff.WriteTable(w, "  ", c.Metrics(), d, "baseline", "this run")
	if c.Changed() == 0 {
		fmt.Fprintln(w, "  no shared sample changed a score or a status")
		return
	}
	if derr != nil {
		fmt.Fprintf(w, "  %d samples changed; they cannot be shown: %s\n", c.Changed(), sanitize.Line(derr.Error()))
		return
	}
	fmt.Fprintf(w, "%d shared samples changed; the %d worst falls first:\n", c.Changed(), len(d.Samples))
	diff.WriteSamples(w, c.Metrics(), d.Samples)
	if more := c.Changed() - len(d.Samples); more > 0 {
		fmt.Fprintf(w, "... and %d more changed samples\n", more)
	}
}

// HTML is the baseline as an HTML report compares with it: a stored
// run's changed samples are read in full, a report file's scores only.
func (b *Baseline) HTML(st cache.Store) (*html.Baseline, error) {
	x, err := b.index(st)
	if err != nil {
		return nil, err
	}
	hb := &html.Baseline{Label: b.Label(), Index: x}
	if b.file == "" {
		hb.Sample = func(pos int) (*eval.Result, error) { return store.Result(st, b.runID, x.Index(pos)) }
	}
	return hb, nil
}

// Stored is stored run id as the baseline an HTML report compares with,
// over metrics (those both runs scored).
func Stored(st cache.Store, id string, metrics []eval.Metric) (*html.Baseline, error) {
	info, _, _, err := st.RunPage(id, 0, 0)
	if err != nil {
		return nil, err
	}
	b := &Baseline{runID: info.ID, info: info, samples: info.Samples, metrics: metrics}
	return b.HTML(st)
}
