package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
)

// The streamed report is byte for byte what encoding the whole report as
// one value gives (the schema users parse), for no sample, one, many, nil
// entries, and texts that encoding/json would escape as HTML.
func TestWriteReportJSONEqualsWholeEncoding(t *testing.T) {
	withHTML := hostileReport()
	withHTML.Samples[2].Answer = "<b>a & b</b> \u2028"
	cases := map[string]*Report{
		"no samples": NewReport(hostileReport().Run, nil),
		"one sample": NewReport(hostileReport().Run, hostileReport().Samples[:1]),
		"hostile":    hostileReport(),
		"html":       withHTML,
		"nil entries": NewReport(hostileReport().Run,
			[]*eval.Result{nil, hostileReport().Samples[1], nil}),
	}
	for name, rep := range cases {
		t.Run(name, func(t *testing.T) {
			var whole bytes.Buffer
			enc := json.NewEncoder(&whole)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(rep); err != nil {
				t.Fatal(err)
			}
			var streamed bytes.Buffer
			if err := rep.WriteJSON(&streamed); err != nil {
				t.Fatal(err)
			}
			if whole.String() != streamed.String() {
				a, b := whole.String(), streamed.String()
				i := 0
				for i < len(a) && i < len(b) && a[i] == b[i] {
					i++
				}
				t.Fatalf("streamed report differs at byte %d:\nwhole:    %q\nstreamed: %q", i, a[max(0, i-40):min(len(a), i+40)], b[max(0, i-40):min(len(b), i+40)])
			}
		})
	}
}

// failAfter fails every write after n bytes, as a full disk does.
type failAfter struct{ n int }

var errDiskFull = errors.New("no space left on device")

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		n := f.n
		f.n = 0
		return n, errDiskFull
	}
	f.n -= len(p)
	return len(p), nil
}

// A failing writer stops the stream at the sample it failed on, with the
// writer's error: a report of a million samples must not be encoded to
// the end into a full disk.
func TestWriteReportJSONStopsAtWriteError(t *testing.T) {
	rep := hostileReport()
	big := make([]*eval.Result, 0, 2000)
	for i := range 2000 {
		r := *rep.Samples[2]
		r.Index = i
		big = append(big, &r)
	}
	yielded := 0
	err := WriteReportJSON(&failAfter{n: 100 << 10}, rep.Run, rep.Summary, tallyOf(nil, big, Levels{}).Diagnoses(), nil, func(yield func(*eval.Result) error) error {
		for _, r := range big {
			yielded++
			if err := yield(r); err != nil {
				return err
			}
		}
		return nil
	})
	if !errors.Is(err, errDiskFull) {
		t.Fatalf("err = %v, want the writer's error", err)
	}
	if yielded >= len(big) {
		t.Fatalf("all %d samples were encoded after the writer failed", yielded)
	}
}

// A Tally fed one result at a time agrees with the report built from all
// of them, and bounds the distinct failure messages it keeps.
func TestTallyMatchesReport(t *testing.T) {
	rep := hostileReport()
	tl := NewTally(rep.Run.Metrics)
	for _, r := range rep.Samples {
		tl.Add(r)
	}
	tl.Add(nil)
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	if got, want := js(tl.Summary()), js(rep.Summary); got != want {
		t.Errorf("summary %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(tl.Diagnoses()), fmt.Sprint(tallyOf(nil, rep.Samples, Levels{}).Diagnoses()); got != want {
		t.Errorf("diagnoses %s, want %s", got, want)
	}
	if tl.Samples() != 3 || tl.Failed() != 1 {
		t.Errorf("samples %d failed %d, want 3 and 1", tl.Samples(), tl.Failed())
	}
	// Mutating a returned summary must not change the tally's.
	s := tl.Summary()
	s[eval.ContextPrecision].ByStatus[eval.StatusJudgeError] = 99
	if tl.Summary()[eval.ContextPrecision].ByStatus[eval.StatusJudgeError] != 1 {
		t.Error("Summary returned the tally's own map")
	}

	many := NewTally([]eval.Metric{eval.Faithfulness})
	for i := range maxErrorMessages + 50 {
		many.Add(&eval.Result{Index: i, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusJudgeError},
			Errors: map[eval.Metric]string{eval.Faithfulness: fmt.Sprintf("sample %d: refused", i)}})
	}
	top := many.TopErrors(1)
	if len(top) != 1 || top[0].Message != otherErrors || top[0].Count != 50 {
		t.Fatalf("top = %+v, want the 50 messages past the bound counted together", top)
	}
	if !strings.Contains(fmt.Sprint(many.Summary()[eval.Faithfulness]), "judge_error") {
		t.Errorf("summary %+v", many.Summary()[eval.Faithfulness])
	}
}

// A sample that fails only one of the team's criteria ranks among the
// worst by that criterion's score.
func TestWorstCountsCriteria(t *testing.T) {
	mk := func(i int, f float64, polite *float64) *eval.Result {
		r := &eval.Result{Index: i, Scores: map[eval.Metric]*float64{eval.Faithfulness: &f}, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}}
		if polite != nil {
			r.Criteria = map[string]*criteria.Trace{"polite": {}}
			r.Scores["polite"], r.Status["polite"] = polite, eval.StatusOK
		}
		return r
	}
	zero := 0.0
	w := NewWorst(1)
	w.Add(mk(0, 0.9, nil))
	w.Add(mk(1, 0.95, &zero))
	if got := w.Samples(); len(got) != 1 || got[0].Index != 1 {
		t.Fatalf("the worst is %+v, want sample 1 (polite 0)", got)
	}
}

// Worst keeps what sorting every sample and taking the first n gives.
func TestWorstEqualsSortedPrefix(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		var all []*eval.Result
		for i := range rng.IntN(40) {
			r := &eval.Result{Index: i, Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{}}
			switch rng.IntN(4) {
			case 0: // failed
				r.Status[eval.Faithfulness] = eval.StatusJudgeError
			case 1: // unscored
			default: // a score from a few values, so ties are common
				v := float64(rng.IntN(5)) / 4
				r.Scores[eval.Faithfulness], r.Status[eval.Faithfulness] = &v, eval.StatusOK
			}
			all = append(all, r)
		}
		n := rng.IntN(12)
		w := NewWorst(n)
		for _, r := range all {
			w.Add(r)
		}
		sorted := append([]*eval.Result(nil), all...)
		sort.SliceStable(sorted, func(i, j int) bool { return lowest(sorted[i]) < lowest(sorted[j]) })
		want := sorted[:min(n, len(sorted))]
		got := w.Samples()
		if len(got) != len(want) {
			t.Fatalf("trial %d: %d kept, want %d", trial, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("trial %d: position %d is sample %d, want %d", trial, i, got[i].Index, want[i].Index)
			}
		}
	}
}

// A why cut for a table cell keeps the criteria it says also fail.
func TestClipWhyKeepsAlsoFails(t *testing.T) {
	why := "criterion cites_policy 0.000 < 1: no pattern found in the answer (looked for " + strings.Repeat("第[0-9]条|", 20) + ")" + alsoFails + "helpful, polite)"
	got := clipWhy(why, 100)
	if !strings.HasSuffix(got, "(also fails: helpful, polite)") || len([]rune(got)) > 100+len("...") {
		t.Fatalf("clipWhy = %q (%d runes)", got, len([]rune(got)))
	}
	if short := "low: faithfulness 0.2 < 0.5"; clipWhy(short, 100) != short {
		t.Fatalf("a short why changed: %q", clipWhy(short, 100))
	}
}
