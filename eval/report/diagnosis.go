package report

import (
	"slices"

	"github.com/ragscope/ragscope/eval"
)

// Diagnosis is the per-sample reading of the scores: which part of the RAG
// pipeline a low score points at. Every result has exactly one (see
// diagRules); ok means every score the sample has passes.
type Diagnosis string

const (
	DiagOK           Diagnosis = "ok"           // every available score passes
	DiagGeneration   Diagnosis = "generation"   // faithfulness low, recall high or no reference: the answer did not use the right documents
	DiagRetrieval    Diagnosis = "retrieval"    // recall low: the needed documents were not retrieved
	DiagOffTopic     Diagnosis = "off-topic"    // faithful but does not answer the question
	DiagNoncommittal Diagnosis = "noncommittal" // answer relevancy zeroed: the answer is evasive ("I don't know")
	DiagIncomplete   Diagnosis = "incomplete"   // faithful, but the reference's points are partly missing from the answer
	DiagCriterion    Diagnosis = "criterion"    // a team's own criterion fails its pass level (FailingCriteria names it)
	DiagLowScore     Diagnosis = "low"          // some score fails, but the scores point at no single cause
	DiagFailed       Diagnosis = "failed"       // a metric failed (judge error, parse error, cancelled, cache miss)
)

// Diagnoses lists them in display order.
var Diagnoses = []Diagnosis{DiagGeneration, DiagRetrieval, DiagOffTopic, DiagNoncommittal, DiagIncomplete, DiagCriterion, DiagLowScore, DiagOK, DiagFailed}

// DiagnosesAt lists the diagnoses a run at l can give, in display order:
// criterion only when l holds criteria.
func DiagnosesAt(l Levels) []Diagnosis {
	if l.HasCriteria() {
		return Diagnoses
	}
	return slices.DeleteFunc(slices.Clone(Diagnoses), func(d Diagnosis) bool { return d == DiagCriterion })
}

// Score bands for the diagnosis, the default Levels: below Low fails, at
// or above High is high, between them passes but draws no "high" conclusion.
const (
	DiagLow  = 0.5
	DiagHigh = 0.7
)

// diagInput is what the rules look at.
type diagInput struct {
	failed       bool // some metric failed
	f, ar, cp, r Band
	// noncommittal: every generated question is noncommittal, or (the
	// offline judge) the answer holds an evasive phrase.
	noncommittal bool
	// wrongNumber: the judge found a number of the answer that the
	// contexts contradict (eval.ConflictNumber).
	wrongNumber bool
	// ac, fc are answer and factual correctness, er entity recall, as
	// answer similarity; ns is noise sensitivity read as 1 - score, so it
	// fails as the others do.
	ac, fc, er, ns, as Band
	// recall and precision are the answer's coverage of the reference
	// (TP/(TP+FN)) and its support by it (TP/(TP+FP)), from answer
	// correctness, else factual correctness.
	recall, precision Band
	// criterion: one of the team's own criteria fails its pass level.
	criterion bool
}

// diagRules is the decision table, evaluated top to bottom; the first rule
// that holds gives the diagnosis. The last rule always holds, so every
// result gets one. Reaching it means some score fails (otherwise "ok" would
// have held) without a rule above naming a cause.
var diagRules = []struct {
	d    Diagnosis
	when func(in diagInput) bool
}{
	// A failure first: the other scores are incomplete.
	{DiagFailed, func(in diagInput) bool { return in.failed }},
	// Retrieval next: without the needed documents the other scores say
	// little. Entity recall decides only without context recall.
	{DiagRetrieval, func(in diagInput) bool { return in.r.failing() || !in.r.has() && in.er.failing() }},
	// The answer evades the question: relevancy is zero by construction.
	{DiagNoncommittal, func(in diagInput) bool { return in.noncommittal }},
	// The answer gives a number the documents it had contradict: whatever
	// the share of its other statements, it did not follow them (a wrong
	// amount or deadline is no pass). Only a number: the judges' negation
	// and name conflicts are too often wrong to overrule a passing score.
	{DiagGeneration, func(in diagInput) bool { return in.wrongNumber }},
	// The right documents were there (recall high) and the answer did not use them.
	{DiagGeneration, func(in diagInput) bool { return in.f.failing() && in.r == BandHigh }},
	// No reference: an unfaithful answer that does address the question.
	{DiagGeneration, func(in diagInput) bool { return in.f.failing() && !in.r.has() && in.ar.passes() }},
	// Faithful, but not an answer to the question.
	{DiagOffTopic, func(in diagInput) bool { return in.f == BandHigh && in.ar.failing() }},
	// Noise sensitivity fails: the answer repeats wrong statements from the
	// chunks, and a failing recall was caught above, so it is generation's.
	{DiagGeneration, func(in diagInput) bool { return in.ns.failing() }},
	// Faithful (or, without faithfulness, precise) but missing part of the
	// reference. Recall below the high band, so one of two points missing is
	// caught.
	{DiagIncomplete, func(in diagInput) bool {
		return in.recall.has() && in.recall != BandHigh &&
			(in.f == BandHigh || !in.f.has() && in.precision == BandHigh)
	}},
	// The pipeline's stages pass (or fail without a cause named above),
	// and a team's own criterion fails: the team's rule names the cause.
	{DiagCriterion, func(in diagInput) bool { return in.criterion }},
	{DiagOK, func(in diagInput) bool {
		return in.f.passes() && in.ar.passes() && in.cp.passes() && in.r.passes() &&
			in.ac.passes() && in.fc.passes() && in.er.passes() && in.ns.passes() && in.as.passes()
	}},
	{DiagLowScore, func(diagInput) bool { return true }},
}

// Diagnose classifies a result at the default pass levels.
func Diagnose(r *eval.Result) Diagnosis { return Levels{}.Diagnose(r) }

// Diagnose classifies a result by the first rule of diagRules that holds,
// each score read against its pass level.
func (l Levels) Diagnose(r *eval.Result) Diagnosis {
	in := l.diagnosisInput(r)
	for _, rule := range diagRules {
		if rule.when(in) {
			return rule.d
		}
	}
	panic("unreachable: the last diagnosis rule always holds")
}

func (l Levels) diagnosisInput(r *eval.Result) diagInput {
	lv := func(m eval.Metric) Band {
		v, ok := r.Score(m)
		if !ok {
			return bandNA
		}
		return l.Band(m, v)
	}
	in := diagInput{
		failed: r.Failed(),
		f:      lv(eval.Faithfulness),
		ar:     lv(eval.AnswerRelevancy),
		cp:     lv(eval.ContextPrecision),
		r:      lv(eval.ContextRecall),
	}
	// A reference statement the judge found in part (the offline judge: in
	// other words) is no evidence that retrieval missed it: recall is read
	// as the share found, attributed or in part.
	if t := r.ContextRecall; t != nil && in.r.has() {
		if n, found := len(t.Classifications), foundInContexts(t); found > t.Attributed && n > 0 {
			in.r = l.Band(eval.ContextRecall, float64(found)/float64(n))
		}
	}
	if t := r.AnswerRelevancy; t != nil {
		switch {
		case t.Mode == eval.AnswerSimilarityMode:
			// The offline judge's cosine counts shared words only: no evidence of
			// relevancy. What it does see is an evasive phrase, named in the hint.
			in.ar = bandNA
			in.noncommittal = t.AllNoncommittal && t.NoncommittalHint != ""
		default:
			in.noncommittal = in.ar.has() && t.AllNoncommittal
		}
	}
	in.wrongNumber = r.Faithfulness != nil && eval.NumberContradicted(r.Faithfulness.Statements) != nil
	in.ac, in.fc, in.er, in.ns, in.as = lv(eval.AnswerCorrectness), lv(eval.FactualCorrectness), lv(eval.ContextEntityRecall), lv(eval.NoiseSensitivity), lv(eval.AnswerSimilarity)
	in.recall, in.precision = correctnessSides(r)
	in.criterion = len(l.FailingCriteria(r)) > 0
	return in
}

// FailingCriteria names the criteria of r whose score fails its pass
// level, in the order of their names.
func (l Levels) FailingCriteria(r *eval.Result) []string {
	var out []string
	for _, name := range r.CriteriaNames() {
		m := eval.Metric(name)
		if v, ok := r.Score(m); ok && r.Status[m] == eval.StatusOK && !l.Passes(m, v) {
			out = append(out, name)
		}
	}
	return out
}

// correctnessSides are the levels of the answer's recall and precision
// against the reference, from answer correctness's classes when it
// scored, else from factual correctness's counts (recall only when its
// mode judged the reference's claims); bandNA without either.
func correctnessSides(r *eval.Result) (recall, precision Band) {
	ratio := func(tp, other int) Band {
		if tp+other == 0 {
			return bandNA
		}
		return bandAt(float64(tp)/float64(tp+other), DiagLow, DiagHigh) // the default bands
	}
	if t := r.AnswerCorrectness; t != nil && r.Status[eval.AnswerCorrectness] == eval.StatusOK {
		c := t.Classes
		return ratio(len(c.TP), len(c.FN)), ratio(len(c.TP), len(c.FP))
	}
	if t := r.FactualCorrectness; t != nil && r.Status[eval.FactualCorrectness] == eval.StatusOK {
		recall = bandNA
		if len(t.ReferenceClaims) > 0 {
			recall = ratio(t.TP, t.FN)
		}
		if len(t.AnswerClaims) > 0 {
			precision = ratio(t.TP, t.FP)
		}
		return recall, precision
	}
	return bandNA, bandNA
}

// foundInContexts counts the reference statements attributed or found in
// part (eval.Classification's FoundInPart).
func foundInContexts(t *eval.ContextRecallTrace) int {
	n := 0
	for _, c := range t.Classifications {
		if c.Attributed == 1 || c.FoundInPart {
			n++
		}
	}
	return n
}
