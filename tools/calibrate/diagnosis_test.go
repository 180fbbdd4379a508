package calibrate

import (
	"context"
	"fmt"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/offline"
	"github.com/ragscope/ragscope/eval/report"
)

// Floors of TestEnterpriseDiagnosisAgreement: the figures measured when
// it was written (docs/offline-judge.md has the table); a change of the
// judge or the diagnosis that loses an agreement fails it.
const (
	enterpriseDiagnosisFloor   = 65
	enterprise2DiagnosisFloor  = 33
	enterprise3DiagnosisFloor  = 45
	enterprise4DiagnosisFloor  = 30
	enterprise5DiagnosisFloor  = 42
	enterprise6DiagnosisFloor  = 28
	enterprise7DiagnosisFloor  = 29
	enterprise8DiagnosisFloor  = 27
	enterprise9DiagnosisFloor  = 34
	enterprise10DiagnosisFloor = 25
	enterprise11DiagnosisFloor = 20
	enterprise12DiagnosisFloor = 27
)

// TestEnterpriseDiagnosisAgreement measures the diagnosis column a new
// user sees (the offline judge, the default metrics, the default pass
// levels) against the one a reviewer gives, on both answers of every
// pair of the project's enterprise sets. The contexts of a pair hold what
// its question needs, and the faithful answer is the reference: a
// reviewer diagnoses the faithful answer ok and the unfaithful one
// generation (retrieval was right, the answer did not follow it).
// Rerun it with -v to read the figures; the disagreements are listed for
// the read set only, since the held-out set's failures are not read.
func TestEnterpriseDiagnosisAgreement(t *testing.T) {
	for _, set := range []struct {
		name  string
		load  func(string) ([]Pair, error)
		floor int
		list  bool
	}{
		{"ragscope/enterprise (read)", LoadEnterprise, enterpriseDiagnosisFloor, true},
		{"ragscope/enterprise-2 (held out)", LoadEnterprise2, enterprise2DiagnosisFloor, false},
		{"ragscope/enterprise-3 (read)", LoadEnterprise3, enterprise3DiagnosisFloor, true},
		{"ragscope/enterprise-4 (held out)", LoadEnterprise4, enterprise4DiagnosisFloor, false},
		{"ragscope/enterprise-5 (read)", LoadEnterprise5, enterprise5DiagnosisFloor, true},
		{"ragscope/enterprise-6 (held out)", LoadEnterprise6, enterprise6DiagnosisFloor, false},
		{"ragscope/enterprise-7 (held out)", LoadEnterprise7, enterprise7DiagnosisFloor, false},
		{"ragscope/enterprise-8 (held out)", LoadEnterprise8, enterprise8DiagnosisFloor, false},
		{"ragscope/enterprise-9 (held out)", LoadEnterprise9, enterprise9DiagnosisFloor, false},
		{"ragscope/enterprise-10 (held out)", LoadEnterprise10, enterprise10DiagnosisFloor, false},
		{"ragscope/enterprise-11 (held out)", LoadEnterprise11, enterprise11DiagnosisFloor, false},
		{"ragscope/enterprise-12 (held out)", LoadEnterprise12, enterprise12DiagnosisFloor, false},
	} {
		pairs, err := set.load("")
		if err != nil {
			t.Fatal(err)
		}
		agreed, total, disagreements := diagnosisAgreement(pairs, 0)
		t.Logf("%s: the diagnosis agrees with a reviewer's on %d of %d answers", set.name, agreed, total)
		if set.list {
			for _, d := range disagreements {
				t.Log("  " + d)
			}
		}
		if agreed < set.floor {
			t.Errorf("%s: %d of %d diagnoses agree, below the floor %d", set.name, agreed, total, set.floor)
		}
	}
}

// diagnosisAgreement runs the default metrics with the offline judge over
// both answers of each pair and counts the diagnoses a reviewer would give.
// With shift 0 the contexts are the pair's own: the faithful answer is ok
// and the unfaithful one generation. With another shift each pair is given
// the contexts of the pair shift places on, which hold nothing its
// question needs: both answers are retrieval's failure.
func diagnosisAgreement(pairs []Pair, shift int) (agreed, total int, disagreements []string) {
	var samples []eval.Sample
	for i, p := range pairs {
		contexts := pairs[(i+shift)%len(pairs)].Contexts
		for k, answer := range []string{p.Faithful, p.Unfaith} {
			samples = append(samples, eval.Sample{Index: 2*i + k, ID: fmt.Sprintf("#%d/%s", i+1, []string{"faithful", "unfaithful"}[k]),
				Question: p.Question, Answer: answer, Contexts: contexts, Reference: p.Faithful})
		}
	}
	r := &eval.Runner{Judge: offline.New(), Config: eval.RunnerConfig{Metrics: eval.DefaultMetrics, Strictness: 3, Workers: 2}}
	for k, res := range r.Run(context.Background(), samples) {
		want := report.DiagOK
		switch {
		case shift != 0:
			want = report.DiagRetrieval
		case k%2 == 1:
			want = report.DiagGeneration
		}
		if d := report.Diagnose(res); d == want {
			agreed++
		} else {
			disagreements = append(disagreements, fmt.Sprintf("%s: %s, a reviewer says %s", res.ID, d, want))
		}
	}
	return agreed, len(samples), disagreements
}

// TestWrongRetrievalDiagnosed: the offline judge attributes a reference
// statement it finds in part (RecallThreshold), so that a paraphrase is no
// retrieval failure; given contexts that hold nothing the question needs
// (another pair's, half the set away), the diagnosis must still be
// retrieval. The floors are the counts measured when it was written.
func TestWrongRetrievalDiagnosed(t *testing.T) {
	for _, set := range []struct {
		name  string
		load  func(string) ([]Pair, error)
		floor int
	}{
		{"ragscope/enterprise", LoadEnterprise, 70},
		{"ragscope/enterprise-2", LoadEnterprise2, 40},
		{"ragscope/enterprise-3", LoadEnterprise3, 56},
		{"ragscope/enterprise-4", LoadEnterprise4, 80},
		{"ragscope/enterprise-5", LoadEnterprise5, 96},
		{"ragscope/enterprise-6", LoadEnterprise6, 96},
		{"ragscope/enterprise-7", LoadEnterprise7, 96},
		{"ragscope/enterprise-8", LoadEnterprise8, 96},
		{"ragscope/enterprise-9", LoadEnterprise9, 96},
		{"ragscope/enterprise-10", LoadEnterprise10, 96},
		{"ragscope/enterprise-11", LoadEnterprise11, 96},
		{"ragscope/enterprise-12", LoadEnterprise12, 96},
	} {
		pairs, err := set.load("")
		if err != nil {
			t.Fatal(err)
		}
		agreed, total, disagreements := diagnosisAgreement(pairs, len(pairs)/2)
		t.Logf("%s, another pair's contexts: retrieval diagnosed on %d of %d answers", set.name, agreed, total)
		if agreed < set.floor {
			t.Errorf("%s: retrieval diagnosed on %d of %d answers, below the floor %d: %v", set.name, agreed, total, set.floor, disagreements)
		}
	}
}
