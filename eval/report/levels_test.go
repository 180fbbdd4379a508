package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// TestDiagnoseLevels: the diagnosis reads each score against its pass
// level, and the high band moves up with a pass level above it.
func TestDiagnoseLevels(t *testing.T) {
	cases := []struct {
		pass, spec string
		want       Diagnosis
	}{
		// Half the statements wrong passes by default, not at 0.9.
		{"", "f=0.5", DiagOK},
		{"faithfulness=0.9", "f=0.5", DiagGeneration},
		{"f=0.9", "f=0.5 ar=0.9 cp=1 cr=1", DiagGeneration},
		{"faithfulness=0.9", "f=0.9 cp=1 cr=1", DiagOK}, // at the level passes
		{"faithfulness=0.9", "f=0.85 cr=1", DiagGeneration},
		{"", "f=0.85 cr=1", DiagOK},
		// The high band starts at the pass level when that is higher: 0.85
		// is faithful by default (off-topic) but fails at 0.9.
		{"", "f=0.85 ar=0.3", DiagOffTopic},
		{"faithfulness=0.9", "f=0.85 ar=0.3", DiagLowScore},
		// A lower level passes what the default fails.
		{"faithfulness=0.3", "f=0.4", DiagOK},
		{"", "f=0.4", DiagGeneration},
		// Context recall: retrieval below its level; at 0.8 a recall of 0.75
		// is not the high recall the generation rule needs.
		{"context_recall=0.8", "f=1 cr=0.75", DiagRetrieval},
		{"", "f=1 cr=0.75", DiagOK},
		{"cr=0.8", "f=0.2 cr=0.9", DiagGeneration},
		// Noise sensitivity: the level is the highest score that passes.
		{"noise_sensitivity=0.3", "f=1 cr=1 ns=0.4", DiagGeneration},
		{"", "f=1 cr=1 ns=0.4", DiagOK},
		{"ns=0.6", "f=1 cr=1 ns=0.55", DiagOK},
		// Answer relevancy with generated questions follows its level ...
		{"answer_relevancy=0.8", "f=1 ar=0.7", DiagOffTopic},
		// ... and the offline cosine still decides nothing.
		{"answer_relevancy=0.8", "f=1 ar=0.1 sim", DiagOK},
		{"answer_relevancy=0.8", "f=1 ar=unsup sim", DiagOK},
		// A level for one metric leaves the others at 0.5.
		{"faithfulness=0.9", "f=1 cp=0.45 cr=1", DiagLowScore},
		{"faithfulness=0.9", "f=1 cp=0.5 cr=1", DiagOK},
	}
	for _, tc := range cases {
		l, err := ParseLevels(tc.pass)
		if err != nil {
			t.Fatalf("%q: %v", tc.pass, err)
		}
		r := sample(t, tc.spec)
		if got := l.Diagnose(r); got != tc.want {
			t.Errorf("--pass %q, %q: %s, want %s", tc.pass, tc.spec, got, tc.want)
		}
		if tc.pass == "" && Diagnose(r) != tc.want {
			t.Errorf("Diagnose(%q) differs from the default Levels", tc.spec)
		}
	}
}

func TestParseLevels(t *testing.T) {
	l, err := ParseLevels(" f=0.9, cr=0.8 ,ns=0.3")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := l.String(), "faithfulness=0.9,context_recall=0.8,noise_sensitivity=0.3"; got != want {
		t.Fatalf("String %q, want %q", got, want)
	}
	if l.Pass(eval.Faithfulness) != 0.9 || l.Pass(eval.ContextPrecision) != DiagLow || l.Pass(eval.NoiseSensitivity) != 0.3 {
		t.Fatalf("levels %v", l)
	}
	if l.Band(eval.Faithfulness, 0.8) != BandLow || l.Band(eval.Faithfulness, 0.9) != BandHigh ||
		l.Band(eval.ContextPrecision, 0.6) != BandMid || l.Band(eval.NoiseSensitivity, 0.31) != BandLow || l.Band(eval.NoiseSensitivity, 0.3) != BandHigh {
		t.Fatal("bands do not follow the levels")
	}
	if def, err := ParseLevels(""); err != nil || !def.IsDefault() || def.String() != "" {
		t.Fatalf("empty: %v %v", def, err)
	}
	for _, bad := range []string{"faithfulness", "faithfulness=1.5", "faithfulness=-0.1", "nosuch=0.5", "f=0.9,faithfulness=0.8", "f=x"} {
		if _, err := ParseLevels(bad); err == nil || !strings.Contains(err.Error(), "--pass") {
			t.Errorf("%q: %v, want an error naming --pass", bad, err)
		}
	}
	// Recorded with a run, read back; the defaults leave no key.
	run := RunInfo{Config: map[string]string{"metrics": "all"}}
	rec := l.Record(run)
	if rec.Config[LevelsConfigKey] != l.String() || run.Config[LevelsConfigKey] != "" {
		t.Fatalf("Record: %v (the original %v)", rec.Config, run.Config)
	}
	if RunLevels(rec).String() != l.String() || !RunLevels(run).IsDefault() {
		t.Fatal("RunLevels does not read what Record wrote")
	}
	if _, ok := (Levels{}).Record(rec).Config[LevelsConfigKey]; ok {
		t.Fatal("the defaults recorded a key")
	}
}

// TestReportsFollowTheRecordedLevels: every report diagnoses with the
// levels the run records, and the Markdown report says which.
func TestReportsFollowTheRecordedLevels(t *testing.T) {
	half := sample(t, "f=0.5")
	half.ID = "half"
	half.Faithfulness = &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{
		{Statement: "New employees get 10 days.", Verdict: 1},
		{Statement: "Unused leave is paid out.", Verdict: 0, Reason: "the context says it expires"}}, Supported: 1}
	for _, tc := range []struct {
		pass string
		want Diagnosis
	}{{"", DiagOK}, {"faithfulness=0.9", DiagGeneration}} {
		l, _ := ParseLevels(tc.pass)
		run := l.Record(RunInfo{ID: "r1", Metrics: []eval.Metric{eval.Faithfulness}})
		rep := NewReport(run, []*eval.Result{half})
		if rep.Diagnoses[tc.want] != 1 {
			t.Errorf("%q: diagnoses %v", tc.pass, rep.Diagnoses)
		}
		var js, csv, md, jl bytes.Buffer
		if err := rep.WriteJSON(&js); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteCSV(&csv); err != nil {
			t.Fatal(err)
		}
		if err := rep.WriteMarkdown(&md, 5); err != nil {
			t.Fatal(err)
		}
		if err := WriteReportJSONL(&jl, RunLevels(run), rep.each); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(rep)
		for name, out := range map[string]string{"json": js.String(), "marshal": string(b), "jsonl": jl.String()} {
			if !strings.Contains(strings.ReplaceAll(out, " ", ""), `"diagnosis":"`+string(tc.want)+`"`) {
				t.Errorf("%q %s: no diagnosis %s:\n%s", tc.pass, name, tc.want, out)
			}
		}
		if !strings.Contains(csv.String(), ","+string(tc.want)+",") {
			t.Errorf("%q csv: no diagnosis %s:\n%s", tc.pass, tc.want, csv.String())
		}
		if !strings.Contains(md.String(), " "+string(tc.want)+" | unsupported: ") {
			t.Errorf("%q md: no diagnosis %s with its why:\n%s", tc.pass, tc.want, md.String())
		}
		if got := strings.Contains(md.String(), "**Pass levels:** faithfulness >= 0.9"); got != (tc.pass != "") {
			t.Errorf("%q md: pass levels shown %v:\n%s", tc.pass, got, md.String())
		}
	}
}

// TestWhyIsNeverEmpty: the Markdown report's why follows the diagnosis
// and has something to say for every sample, the passing ones included.
func TestWhyIsNeverEmpty(t *testing.T) {
	nc := sample(t, "f=1 ar=unsup sim nc")
	offTopic := sample(t, "f=1 ar=0.2")
	offTopic.AnswerRelevancy.Questions = []eval.GeneratedQuestion{{Question: "What is the capital of France?", Cosine: 0.2}}
	for _, tc := range []struct {
		r    *eval.Result
		want string
	}{
		{nc, `noncommittal: not sure`},
		{offTopic, `generated question (cosine 0.200): "What is the capital of France?"`},
		{sample(t, "f=1 cp=0.2 cr=1"), "below the pass level: context_precision 0.200 < 0.5"},
		{sample(t, "f=1 ns=0.8"), "below the pass level: noise_sensitivity 0.800 > 0.5"},
		{sample(t, "f=1 ar=unsup sim"), "every score passes its pass level"},
		{sample(t, "f=1 ar=0.9 cp=1 cr=1"), "every score passes its pass level"},
		{sample(t, "f=0.5 ar=0.9 cp=1 cr=1 conflict:number"), `contradicted: "s1": the context says otherwise`},
	} {
		d := Diagnose(tc.r)
		if got := (Levels{}).Why(tc.r, d); got != tc.want {
			t.Errorf("%s: why %q, want %q", d, got, tc.want)
		}
	}
	// Context recall's evidence names a statement not retrieved before one
	// found in part.
	for _, tc := range []struct{ spec, want string }{
		{"cr=0 crt:0/1/1", `not retrieved: "r1": `},
		{"cr=0 crt:0/2/0", `found in part: "r0": `},
	} {
		r := sample(t, tc.spec)
		if got := (Levels{}).Why(r, Diagnose(r)); got != tc.want {
			t.Errorf("%s: why %q, want %q", tc.spec, got, tc.want)
		}
	}
	l, _ := ParseLevels("faithfulness=0.9")
	if got := l.Why(sample(t, "f=0.8"), l.Diagnose(sample(t, "f=0.8"))); got != "below the pass level: faithfulness 0.800 < 0.9" {
		t.Errorf("why at --pass faithfulness=0.9: %q", got)
	}
}

// TestAnswerCosineZeroIsWritten: the offline trace's one measurement is
// written even when it is 0; the questions mode has none to write.
func TestAnswerCosineZeroIsWritten(t *testing.T) {
	b, err := json.Marshal(&eval.Result{AnswerRelevancy: &eval.AnswerRelevancyTrace{Mode: eval.AnswerSimilarityMode, Questions: []eval.GeneratedQuestion{}}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"answer_cosine":0`) {
		t.Fatalf("answer_cosine 0 dropped: %s", b)
	}
	// An encoder that does not escape HTML (the reports') gets the text as it is.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(eval.AnswerRelevancyTrace{Mode: "questions", Questions: []eval.GeneratedQuestion{{Question: "a <b> & c"}}}); err != nil {
		t.Fatal(err)
	}
	if s := buf.String(); strings.Contains(s, "answer_cosine") || !strings.Contains(s, "a <b> & c") {
		t.Fatalf("questions mode: %s", s)
	}
	var back eval.AnswerRelevancyTrace
	in := eval.AnswerRelevancyTrace{Mode: eval.AnswerSimilarityMode, AnswerCosine: 0.25, NoncommittalHint: "not sure", AllNoncommittal: true, Questions: []eval.GeneratedQuestion{}}
	b, _ = json.Marshal(in)
	if err := json.Unmarshal(b, &back); err != nil || back.AnswerCosine != 0.25 || back.NoncommittalHint != "not sure" || !back.AllNoncommittal {
		t.Fatalf("round trip: %+v %v (%s)", back, err, b)
	}
}
