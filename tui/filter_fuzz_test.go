package tui

import (
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// FuzzFilter parses arbitrary filter bar input. It must never panic, fail
// with a message or give well-formed terms, and match every kind of row
// without panicking; the same words in another order filter the same rows,
// and a quoted phrase is one free-text term.
func FuzzFilter(f *testing.F) {
	for _, s := range []string{
		"f<0.5 ar<0.7 cp=0 status:failed diag:retrieval text",
		"", "   ", "f<0.5", "CR>=0.8", "faithfulness!=1", "context_recall==.5", "precision<=1", "recall>0",
		"status:n/a", "status:judge_error", "STATUS:OK", "diag:offtopic", "diag:off-topic", "Diag:Generation",
		"Refund", "纳税人", `"annual plans"`, `"x<1"`, `a"b c"d`, `""`, `"unclosed`, "f<abc", "f<1.5", "f<",
		"zz<0.5", "<0.5", "f<=<0.5", "f=<0.5", "f<0x1p-1", "f<1e-1", "f<+Inf", "f<NaN", "f<-0", "f<.5e0",
		"status:", "diag:", "status:bogus", ":", "a:b", "f<0.5\tar>0.2\u00a0cp=1", "\xff\xfe", "İ<0.5", "K<0.5",
		"df<0", "dar<-0.1", "dcp>0", "dcr!=0", "ΔF<0", "δcr>=-1", "df<-1.5", "df<1.01", "d<0", "dx<0", "ddf<0", "df<-",
	} {
		f.Add(s)
	}
	rows := fuzzRows()
	f.Fuzz(func(t *testing.T, src string) {
		flt, err := parseFilter(src, critSet{})
		if err != nil {
			if flt != nil || err.Error() == "" {
				t.Fatalf("%q: filter %v with error %q", src, flt, err)
			}
			return
		}
		if flt.src != strings.TrimSpace(src) {
			t.Fatalf("%q: src %q", src, flt.src)
		}
		for _, tm := range flt.terms {
			checkTerm(t, src, tm)
		}
		got := matching(flt, rows)

		// The terms are ANDed: their order does not matter.
		if !strings.Contains(src, `"`) {
			words := strings.FieldsFunc(src, unicode.IsSpace)
			if len(words) != len(flt.terms) {
				t.Fatalf("%q: %d words, %d terms", src, len(words), len(flt.terms))
			}
			slices.Reverse(words)
			rev, err := parseFilter(strings.Join(words, " "), critSet{})
			if err != nil {
				t.Fatalf("%q reversed: %v", src, err)
			}
			if again := matching(rev, rows); !slices.Equal(got, again) {
				t.Fatalf("%q matches %v, reversed %v", src, got, again)
			}
		}

		// A quoted phrase is one free-text term, whatever it holds.
		if !strings.Contains(src, `"`) {
			q, err := parseFilter(`"`+src+`"`, critSet{})
			if err != nil || len(q.terms) != 1 || q.terms[0].kind != termText || q.terms[0].text != strings.ToLower(string([]rune(src))) {
				t.Fatalf("%q quoted: %+v, %v", src, q, err)
			}
		}
	})
}

func checkTerm(t *testing.T, src string, tm term) {
	t.Helper()
	switch tm.kind {
	case termScore:
		if tm.slot < 0 || tm.slot >= len(eval.AllMetrics) || math.IsNaN(tm.value) || tm.value < 0 || tm.value > 1 ||
			!slices.Contains([]string{"<", "<=", ">", ">=", "=", "!="}, tm.op) {
			t.Fatalf("%q: score term %+v", src, tm)
		}
	case termStatus:
		if !slices.Contains(statusWords, tm.status) {
			t.Fatalf("%q: status term %+v", src, tm)
		}
	case termDiag:
		if !slices.Contains(report.Diagnoses, tm.diag) {
			t.Fatalf("%q: diagnosis term %+v", src, tm)
		}
	case termDelta:
		if tm.slot < 0 || tm.slot >= len(eval.AllMetrics) || math.IsNaN(tm.value) || tm.value < -1 || tm.value > 1 ||
			!slices.Contains([]string{"<", "<=", ">", ">=", "=", "!="}, tm.op) || tm.word == "" {
			t.Fatalf("%q: change term %+v", src, tm)
		}
	case termText:
	default:
		t.Fatalf("%q: term of kind %d", src, tm.kind)
	}
}

// fuzzRows are rows of every kind: the fixture's finished samples (scores,
// failures, missing input) and one still running.
func fuzzRows() []*row {
	var rows []*row
	for i, res := range fixtureResults() {
		rows = append(rows, newRow(i, res, report.Levels{}))
	}
	return append(rows, newRow(len(rows), nil, report.Levels{}), newRow(len(rows)+1, &eval.Result{}, report.Levels{}))
}

// fuzzEnv compares every row with a "before" 0.5 lower than its scores,
// so change terms meet positive, negative and missing changes.
var fuzzEnv = matchEnv{metrics: eval.AllMetrics, delta: func(r *row, slot int) (float64, bool) {
	v := r.score(slot)
	return v - 0.5, !math.IsNaN(v)
}}

func matching(f *filter, rows []*row) []int {
	var out []int
	for _, r := range rows {
		if f.match(r, fuzzEnv) {
			out = append(out, r.index)
		}
	}
	return out
}
