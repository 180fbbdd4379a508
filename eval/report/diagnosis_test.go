package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
)

// sample builds a result from "metric=value" terms: a number is a score,
// "na" a not-computable metric (missing_input), "err" a failed one
// (judge_error), "unsup" one the judge does not support; "nc" marks answer
// relevancy all noncommittal and "sim" puts it in the offline judge's
// answer-similarity mode (with "nc", the evasive phrase found). A "sim"
// answer relevancy with a score is a run recorded before the offline
// judge marked it unsupported. "ac:TP/FP/FN"
// and "fc:TP/FP/FN" give answer or factual correctness a trace with those
// counts (set the score with ac= or fc=; "fcp:TP/FP" is factual
// correctness in precision mode, without reference claims). "crit.NAME=v"
// is a criterion of that name with a score (or na, err, unsup) and a trace.
func sample(t testing.TB, spec string) *eval.Result {
	t.Helper()
	r := &eval.Result{Scores: map[eval.Metric]*float64{}, Status: map[eval.Metric]eval.Status{}}
	names := map[string]eval.Metric{"f": eval.Faithfulness, "ar": eval.AnswerRelevancy, "cp": eval.ContextPrecision, "cr": eval.ContextRecall,
		"ac": eval.AnswerCorrectness, "fc": eval.FactualCorrectness, "er": eval.ContextEntityRecall, "ns": eval.NoiseSensitivity,
		"as": eval.AnswerSimilarity}
	ar := &eval.AnswerRelevancyTrace{Mode: "questions"}
	for _, term := range strings.Fields(spec) {
		switch term {
		case "nc":
			ar.AllNoncommittal = true
			continue
		case "sim":
			ar.Mode = "answer_similarity"
			continue
		}
		if kind, ok := strings.CutPrefix(term, "conflict:"); ok {
			r.Faithfulness = &eval.FaithfulnessTrace{Statements: []eval.StatementVerdict{
				{Statement: "s0", Verdict: 1, Reason: "the context says so"},
				{Statement: "s1", Verdict: 0, Reason: "the context says otherwise", Conflict: kind}}}
			continue
		}
		if counts, ok := strings.CutPrefix(term, "crt:"); ok {
			r.ContextRecall = recallTrace(t, counts)
			continue
		}
		if k, counts, ok := strings.Cut(term, ":"); ok {
			var tp, fp, fn int
			if _, err := fmt.Sscanf(counts+"/0", "%d/%d/%d", &tp, &fp, &fn); err != nil {
				t.Fatalf("bad counts %q", term)
			}
			verdicts := func(yes, no int) []eval.StatementVerdict {
				var out []eval.StatementVerdict
				for i := 0; i < yes+no; i++ {
					out = append(out, eval.StatementVerdict{Statement: fmt.Sprint("s", i), Verdict: btoi(i < yes)})
				}
				return out
			}
			switch k {
			case "ac":
				r.AnswerCorrectness = &eval.AnswerCorrectnessTrace{Classes: eval.CorrectnessClasses{TP: items(tp), FP: items(fp), FN: items(fn)}}
			case "fc":
				r.FactualCorrectness = &eval.FactualCorrectnessTrace{Mode: "f1", TP: tp, FP: fp, FN: fn,
					AnswerClaims: verdicts(tp, fp), ReferenceClaims: verdicts(tp, fn)}
			case "fcp":
				r.FactualCorrectness = &eval.FactualCorrectnessTrace{Mode: "precision", TP: tp, FP: fp, AnswerClaims: verdicts(tp, fp)}
			default:
				t.Fatalf("bad term %q", term)
			}
			continue
		}
		k, v, ok := strings.Cut(term, "=")
		m, known := names[k]
		if name, crit := strings.CutPrefix(k, "crit."); crit {
			m, known = eval.Metric(name), true
			if r.Criteria == nil {
				r.Criteria = map[string]*criteria.Trace{}
			}
			r.Criteria[name] = &criteria.Trace{Reason: "decided by " + name}
		}
		if !ok || !known {
			t.Fatalf("bad term %q", term)
		}
		switch v {
		case "na":
			r.Status[m] = eval.StatusMissingInput
		case "err":
			r.Status[m] = eval.StatusJudgeError
		case "unsup":
			r.Status[m] = eval.StatusUnsupported
		default:
			var x float64
			if _, err := fmt.Sscan(v, &x); err != nil {
				t.Fatalf("bad score %q", term)
			}
			r.Scores[m] = &x
			r.Status[m] = eval.StatusOK
		}
	}
	if _, ok := r.Status[eval.AnswerRelevancy]; ok {
		if ar.Mode == eval.AnswerSimilarityMode && ar.AllNoncommittal {
			ar.NoncommittalHint = "not sure"
		}
		r.AnswerRelevancy = ar
	}
	return r
}

// recallTrace is a context recall trace of "ATTRIBUTED/FOUND/MISSING"
// reference statements: attributed, found in part, and neither.
func recallTrace(t testing.TB, counts string) *eval.ContextRecallTrace {
	t.Helper()
	var att, found, missing int
	if _, err := fmt.Sscanf(counts, "%d/%d/%d", &att, &found, &missing); err != nil {
		t.Fatalf("bad counts %q", counts)
	}
	tr := &eval.ContextRecallTrace{Attributed: att}
	for i := 0; i < att+found+missing; i++ {
		tr.Classifications = append(tr.Classifications, eval.Classification{Statement: fmt.Sprint("r", i), Attributed: btoi(i < att), FoundInPart: i >= att && i < att+found})
	}
	return tr
}

// TestDiagnose has at least one case per rule of the decision table (the
// rule is named first), its boundaries, samples with a single metric and
// the cases the issue reported.
func TestDiagnose(t *testing.T) {
	cases := []struct {
		spec string
		want Diagnosis
	}{
		// 1 failed: any metric failed, whatever the others say.
		{"f=1 ar=0.9 cp=1 cr=err", DiagFailed},
		{"f=err cr=0", DiagFailed},
		{"f=0 ar=0 nc cp=0 cr=0 ar=err", DiagFailed},
		{"cp=err", DiagFailed},
		// 2 retrieval: recall < 0.5.
		{"f=0 ar=0.9 cp=1 cr=0.2", DiagRetrieval},
		{"f=1 ar=0 nc cr=0.49", DiagRetrieval}, // noncommittal because the documents were missing
		{"f=1 ar=0.1 cr=0", DiagRetrieval},
		{"cr=0", DiagRetrieval},
		// 3 noncommittal: answer relevancy zeroed by noncommittal questions.
		{"f=0 ar=0 nc cp=1 cr=1", DiagNoncommittal},
		{"f=1 ar=0 nc cr=0.5", DiagNoncommittal},
		{"f=na ar=0 nc", DiagNoncommittal},
		{"ar=0 nc", DiagNoncommittal},                  // issue: the only score is AR 0
		{"ar=0 nc sim f=0.8", DiagNoncommittal},        // offline: noncommittal hint
		{"ar=unsup nc sim f=1 cr=1", DiagNoncommittal}, // offline, AR unsupported: the evasive phrase still shows it
		{"f=1 ar=0 nc cp=1 cr=0.8", DiagNoncommittal},  // not off-topic: evasive
		// 4 generation: a number of the answer the contexts contradict,
		// whatever the share of statements supported (the offline judge
		// says which conflicts are of numbers).
		{"f=0.5 ar=0.9 cp=1 cr=1 conflict:number", DiagGeneration},
		{"f=0.5 conflict:number", DiagGeneration},
		{"f=0.5 cr=0.2 conflict:number", DiagRetrieval}, // the documents were missing first
		{"f=0.5 ar=0 nc cr=1 conflict:number", DiagNoncommittal},
		{"f=0.5 ar=0.9 cp=1 cr=1 conflict:negation", DiagOK},
		{"f=0.5 ar=0.9 cp=1 cr=1 conflict:name", DiagOK},
		{"f=0.5 ar=0.9 cp=1 cr=1 conflict:", DiagOK},
		// 5 generation: faithfulness < 0.5, recall >= 0.7.
		{"f=0 cr=1", DiagGeneration},
		// A reference statement found in part (the offline judge could not
		// match its words) is no evidence that retrieval missed it: recall
		// is read as the share found.
		{"f=0 cr=0.33 crt:1/2/0", DiagGeneration},
		{"f=0 cr=0.33 crt:1/0/2", DiagRetrieval},
		{"f=0 cr=0.33 crt:1/1/1", DiagLowScore}, // two of three found: recall passes, but is not high
		{"f=1 cr=0.33 crt:1/1/1", DiagOK},
		{"f=0 cr=0 crt:0/1/2", DiagRetrieval},
		{"f=0.49 ar=0.9 cp=1 cr=0.7", DiagGeneration},
		{"f=0 ar=0 cp=0 cr=1", DiagGeneration}, // also irrelevant, but the documents were there
		// 6 generation: faithfulness < 0.5, no reference, answer relevancy passes or n/a.
		{"f=0.2", DiagGeneration},
		{"f=0 ar=0.64 cp=na cr=na", DiagGeneration},
		{"f=0 ar=na cr=na", DiagGeneration},
		{"f=0 ar=0.12 sim", DiagGeneration},
		{"f=0 ar=0.05 sim", DiagGeneration}, // the offline cosine does not pass or fail the answer
		{"f=0 ar=unsup sim", DiagGeneration},
		// 7 off-topic: faithfulness >= 0.7, answer relevancy fails.
		{"f=1 ar=0.3", DiagOffTopic},
		{"f=0.7 ar=0.49 cp=1 cr=1", DiagOffTopic},
		{"f=1 ar=0.3 cp=0 cr=0.6", DiagOffTopic},
		// 8 generation: noise sensitivity above 0.5 (lower is better).
		{"f=1 ar=0.9 cr=1 ns=0.6", DiagGeneration},
		{"ns=1", DiagGeneration},
		{"f=1 ar=0.9 cr=0.2 ns=1", DiagRetrieval}, // the documents were missing first
		{"f=1 ar=0.9 cr=1 ns=0.5", DiagOK},        // 0.5 passes, as 0.5 does for the others
		// 9 incomplete: recall of the reference < 0.7 with faithfulness >= 0.7,
		// or without faithfulness, precision >= 0.7.
		// The case: the reference lists two services, the assistant
		// gave one: TP 1, FN 1, recall 0.5; AC = 0.75·F1(1,0,1) + 0.25·sim = 0.75·0.667 + 0.25·0.9 = 0.725 passes.
		{"f=1 ar=0.9 cp=1 cr=1 ac=0.725 ac:1/0/1", DiagIncomplete},
		{"f=0.7 ac=0.4 ac:1/0/2", DiagIncomplete},
		{"ac=0.8 ac:2/0/1", DiagIncomplete},       // no faithfulness, precise
		{"f=1 fc=0.667 fc:1/0/1", DiagIncomplete}, // factual correctness's recall side
		{"fc=0.5 fc:2/0/2", DiagIncomplete},       // no faithfulness, fc precision 1
		{"f=1 ar=0.9 ac=0.9 ac:3/0/1", DiagOK},    // recall 0.75 is high
		{"f=0.6 ac=0.725 ac:1/0/1", DiagOK},       // not faithful enough to call it only incomplete
		// Answer similarity is a score of its own: a failing one is no ok,
		// and one at the level to within rounding passes, as the gate reads it.
		{"f=1 as=0.28", DiagLowScore},
		{"f=1 as=0.4999999999999999", DiagOK},
		{"ac=0.6 ac:1/1/1", DiagOK},                             // precision 0.5: not only incomplete
		{"f=1 fc=1 fcp:2/0", DiagOK},                            // precision mode: no recall side
		{"f=1 ac=0.725 ac:1/0/1 fc=1 fc:2/0/0", DiagIncomplete}, // answer correctness decides
		{"f=1 ar=0.2 ac=0.725 ac:1/0/1", DiagOffTopic},          // off-topic first
		{"f=1 ac=err ac:1/0/1", DiagFailed},
		// entity recall: a retrieval reading without context recall.
		{"f=1 ar=0.9 er=0.2", DiagRetrieval},
		{"f=1 ar=0.9 cr=1 er=0.2", DiagLowScore}, // context recall decides retrieval
		{"f=1 ar=0.9 er=0.6", DiagOK},
		// 11 ok: every available score passes.
		{"f=1 ar=0.9 cp=1 cr=1", DiagOK},
		{"f=0.5 ar=0.5 cp=0.5 cr=0.5", DiagOK},
		{"f=1 ar=0.3 sim", DiagOK},
		// The offline judge's cosine of answer to question is no evidence of
		// relevancy: an on-point answer in other words scores 0.
		{"f=1 ar=0.03 sim", DiagOK},
		{"f=1 ar=0 sim cp=1 cr=1", DiagOK},
		{"f=1 ar=unsup sim cp=1 cr=1", DiagOK},
		{"f=1 ar=0.1 sim cp=1 cr=1", DiagOK},
		{"f=0.667 ar=0.16 sim cp=1 cr=0.667", DiagOK},
		{"f=na ar=na cp=na cr=na", DiagOK}, // nothing to judge by
		{"", DiagOK},
		{"f=1", DiagOK},
		{"ar=0.9", DiagOK},
		{"cp=1", DiagOK},
		{"cr=1", DiagOK},
		{"f=1 ac=0.6 ac:3/0/1 fc=0.8 fc:3/0/1", DiagOK},
		// 10 criterion: a team's own criterion fails, and no rule above
		// names a cause in the pipeline.
		{"f=1 ar=0.9 cp=1 cr=1 crit.polite=0", DiagCriterion},
		{"crit.cites=0 crit.polite=1", DiagCriterion},
		{"f=1 crit.form=0.49", DiagCriterion},
		{"f=0 ar=0 cr=0.5 crit.polite=0", DiagCriterion}, // a failing score with no cause, and the team's rule
		{"f=1 crit.form=0.5", DiagOK},                    // the default level, without the file's
		{"f=1 crit.polite=unsup crit.cites=na", DiagOK},
		{"f=0 cr=1 crit.polite=0", DiagGeneration}, // the pipeline's cause first
		{"cr=0 crit.polite=0", DiagRetrieval},
		{"f=1 crit.polite=err", DiagFailed},
		// 12 low: some score fails and no rule above names a cause.
		{"f=0 ar=0 cr=0.5", DiagLowScore}, // issue: was ok
		{"f=0 ar=0.9 cr=0.6", DiagLowScore},
		{"f=0 ar=0.3 cp=na cr=na", DiagLowScore},
		{"f=1 ar=0.9 cp=0 cr=1", DiagLowScore}, // only precision low
		{"cp=0", DiagLowScore},
		{"cp=0 cr=0.6", DiagLowScore},
		{"f=0.6 ar=0.3", DiagLowScore}, // not faithful enough for off-topic
		{"f=na ar=0.3", DiagLowScore},
		{"ar=0", DiagLowScore}, // zero, but not noncommittal
		{"f=0.5 ar=0.412 cp=1 cr=1", DiagLowScore},
		{"f=1 ar=0.9 ac=0.3 ac:2/3/0", DiagLowScore}, // answer correctness low on FP alone
		{"f=0.6 fc=0.2", DiagLowScore},
	}
	seen := map[Diagnosis]bool{}
	for _, tc := range cases {
		r := sample(t, tc.spec)
		got := Diagnose(r)
		if got != tc.want {
			t.Errorf("%q: %s, want %s", tc.spec, got, tc.want)
		}
		seen[got] = true
	}
	for _, d := range Diagnoses {
		if !seen[d] {
			t.Errorf("no case diagnosed %s", d)
		}
	}
}

// TestDiagnoseComplete runs every combination of metric levels and checks
// what the table promises: one of Diagnoses always, failed exactly when a
// metric failed, ok exactly when every available score passes, low only
// with a failing score.
func TestDiagnoseComplete(t *testing.T) {
	values := []string{"", "na", "err", "0", "0.05", "0.3", "0.5", "0.6", "0.7", "1"}
	metrics := []string{"f", "ar", "cp", "cr"}
	known := map[Diagnosis]bool{}
	for _, d := range Diagnoses {
		known[d] = true
	}
	n := 0
	var idx [4]int
	for {
		var terms []string
		for i, m := range metrics {
			if v := values[idx[i]]; v != "" {
				terms = append(terms, m+"="+v)
			}
		}
		for _, extra := range []string{"", "sim", "nc", "sim nc"} {
			spec := strings.TrimSpace(strings.Join(terms, " ") + " " + extra)
			r := sample(t, spec)
			if r.AnswerRelevancy != nil && r.AnswerRelevancy.AllNoncommittal {
				if v, ok := r.Score(eval.AnswerRelevancy); ok && v != 0 {
					continue // the runner never writes this: noncommittal zeroes the score
				}
			}
			d := Diagnose(r)
			n++
			if !known[d] {
				t.Fatalf("%q: %q is not in Diagnoses", spec, d)
			}
			if (d == DiagFailed) != r.Failed() {
				t.Errorf("%q: %s, failed=%v", spec, d, r.Failed())
			}
			if r.Failed() {
				continue
			}
			offline := r.AnswerRelevancy != nil && r.AnswerRelevancy.Mode == eval.AnswerSimilarityMode
			allPass, anyFails := true, false
			for _, m := range eval.AllMetrics {
				if m == eval.AnswerRelevancy && offline {
					continue // the offline cosine passes and fails nothing
				}
				if v, ok := r.Score(m); ok && v < DiagLow {
					allPass, anyFails = false, true
				}
			}
			if offline && r.AnswerRelevancy.AllNoncommittal {
				// The evasive phrase decides, after retrieval.
				if d != DiagNoncommittal && d != DiagRetrieval {
					t.Errorf("%q: %s, want noncommittal or retrieval", spec, d)
				}
				continue
			}
			if (d == DiagOK) != allPass {
				t.Errorf("%q: %s, every available score passes=%v", spec, d, allPass)
			}
			if d == DiagLowScore && !anyFails {
				t.Errorf("%q: low without a failing score", spec)
			}
		}
		i := 0
		for ; i < len(idx); i++ {
			if idx[i]++; idx[i] < len(values) {
				break
			}
			idx[i] = 0
		}
		if i == len(idx) {
			break
		}
	}
	if n < 10000 {
		t.Fatalf("only %d combinations", n)
	}
}

// TestReportJSONDiagnosis: every sample of the JSON report carries its
// diagnosis, the report its counts (every diagnosis, 0 included), the
// result's own fields are still there, and the report still decodes.
func TestReportJSONDiagnosis(t *testing.T) {
	results := []*eval.Result{
		sample(t, "f=0 ar=0 cr=0.5"),
		nil, // never finished: left out
		sample(t, "ar=0 nc"),
		sample(t, "f=1 ar=0.9 cp=1 cr=1"),
		sample(t, "f=1 ar=0.9 cp=1 cr=1"),
	}
	for i, r := range results {
		if r != nil {
			r.Index, r.ID, r.Question = i, fmt.Sprintf("s%d", i), "<b>&</b>"
		}
	}
	rep := NewReport(RunInfo{ID: "r", Metrics: eval.AllMetrics}, results)
	var buf bytes.Buffer
	if err := rep.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"question": "<b>&</b>"`) {
		t.Errorf("WriteJSON escaped HTML or lost the question:\n%s", buf.String())
	}
	var raw struct {
		Version   int                             `json:"version"`
		Summary   map[eval.Metric]json.RawMessage `json:"summary"`
		Diagnoses map[string]int                  `json:"diagnoses"`
		Samples   []map[string]any                `json:"samples"`
	}
	if err := json.Unmarshal(buf.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	if raw.Version != reportVersion || len(raw.Summary) != len(eval.AllMetrics) {
		t.Errorf("version %d, summary %v", raw.Version, raw.Summary)
	}
	want := map[string]int{"generation": 0, "retrieval": 0, "off-topic": 0, "noncommittal": 1, "incomplete": 0, "low": 1, "ok": 2, "failed": 0}
	if fmt.Sprint(raw.Diagnoses) != fmt.Sprint(want) {
		t.Errorf("diagnoses %v, want %v", raw.Diagnoses, want)
	}
	wantDiag := []string{"low", "noncommittal", "ok", "ok"}
	if len(raw.Samples) != len(wantDiag) {
		t.Fatalf("%d samples", len(raw.Samples))
	}
	for i, s := range raw.Samples {
		if s["diagnosis"] != wantDiag[i] {
			t.Errorf("sample %d: diagnosis %v, want %s", i, s["diagnosis"], wantDiag[i])
		}
		for _, k := range []string{"index", "id", "question", "answer", "contexts", "scores", "status"} {
			if _, ok := s[k]; !ok {
				t.Errorf("sample %d lost %q: %v", i, k, s)
			}
		}
	}
	// json.Marshal of the value and of the pointer agree with WriteJSON.
	for _, v := range []any{rep, *rep} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte(`"diagnosis":"noncommittal"`)) || !bytes.Contains(b, []byte(`"diagnoses":{`)) {
			t.Errorf("json.Marshal(%T) without diagnoses: %s", v, b)
		}
	}
	var back Report
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Samples) != 4 || back.Diagnoses[DiagOK] != 2 || Diagnose(back.Samples[1]) != DiagNoncommittal {
		t.Errorf("decoded: %d samples, diagnoses %v", len(back.Samples), back.Diagnoses)
	}
	empty := NewReport(RunInfo{ID: "e"}, nil)
	buf.Reset()
	if err := empty.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"samples": []`) || !strings.Contains(buf.String(), `"ok": 0`) {
		t.Errorf("empty report:\n%s", buf.String())
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func items(n int) []eval.CorrectnessItem {
	out := make([]eval.CorrectnessItem, n)
	for i := range out {
		out[i] = eval.CorrectnessItem{Statement: "s", Reason: "r"}
	}
	return out
}

// A criterion fails at the level its file gives it, and the failing ones
// are named: in the why of the reports, in the JSON sample.
func TestDiagnoseCriterionNamed(t *testing.T) {
	levels := Levels{}.WithCriteria(&CriteriaInfo{Items: []CriterionInfo{{Name: "form", Pass: 1}, {Name: "polite", Pass: 1}, {Name: "tone", Pass: 0.5}}})
	for _, tc := range []struct {
		spec    string
		want    Diagnosis
		failing []string
		why     string
	}{
		{"f=1 crit.form=0.9 crit.tone=0.5", DiagCriterion, []string{"form"}, "criterion form 0.900 < 1: decided by form"},
		{"f=1 crit.polite=0 crit.form=0.5", DiagCriterion, []string{"form", "polite"}, "criterion form 0.500 < 1: decided by form (also fails: polite)"},
		{"f=1 crit.form=1 crit.tone=0.5", DiagOK, nil, "every score passes its pass level"},
		{"f=0 cr=1 crit.form=0", DiagGeneration, []string{"form"}, ""},
	} {
		r := sample(t, tc.spec)
		d := levels.Diagnose(r)
		if d != tc.want || !slices.Equal(levels.FailingCriteria(r), tc.failing) {
			t.Errorf("%q: %s failing %v, want %s failing %v", tc.spec, d, levels.FailingCriteria(r), tc.want, tc.failing)
		}
		if got := levels.Why(r, d); tc.why != "" && got != tc.why {
			t.Errorf("%q: why %q, want %q", tc.spec, got, tc.why)
		}
		var b bytes.Buffer
		if err := WriteSampleJSON(&b, r, levels); err != nil {
			t.Fatal(err)
		}
		var back struct {
			Diagnosis Diagnosis `json:"diagnosis"`
			Failing   []string  `json:"failing_criteria"`
		}
		if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.Diagnosis != tc.want || !slices.Equal(back.Failing, tc.failing) {
			t.Errorf("%q: the JSON sample says %+v (%v)", tc.spec, back, err)
		}
	}
	// A run without criteria lists no criterion class; one with them does.
	if slices.Contains(DiagnosesAt(Levels{}), DiagCriterion) || !slices.Contains(DiagnosesAt(levels), DiagCriterion) {
		t.Error("DiagnosesAt lists the criterion class in the wrong run")
	}
}
