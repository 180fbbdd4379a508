package eval

// Diagnosis is the per-sample reading of the seed's table in DESIGN.md: which
// part of the RAG pipeline a low score points at.
type Diagnosis string

const (
	DiagOK         Diagnosis = "ok"
	DiagGeneration Diagnosis = "generation" // faithfulness low, recall high: the answer did not use the right documents
	DiagRetrieval  Diagnosis = "retrieval"  // recall low: the needed documents were not retrieved
	DiagOffTopic   Diagnosis = "off-topic"  // faithful but does not answer the question
	DiagFailed     Diagnosis = "failed"     // a metric failed (judge error, parse error, cancelled, cache miss)
)

// Diagnoses lists them in display order.
var Diagnoses = []Diagnosis{DiagGeneration, DiagRetrieval, DiagOffTopic, DiagOK, DiagFailed}

// Score bands for the diagnosis. A score below Low is low, at or above High
// is high; between them it is neither (no diagnosis is drawn from it).
const (
	DiagLow  = 0.5
	DiagHigh = 0.7
	// DiagLowAnswerSimilarity replaces DiagLow for answer relevancy in the
	// offline judge's answer-similarity mode, whose cosines of hashed n-grams
	// run much lower than those of generated questions: on the demo data the
	// on-topic answers score 0.16-0.85 and the off-topic one 0.03.
	DiagLowAnswerSimilarity = 0.1
)

// Diagnose classifies a result. Retrieval comes first: when the needed
// documents were not retrieved, the answer's faithfulness says little. A low
// faithfulness without a reference (recall not computable) is read as
// generation: the answer is not backed by what was retrieved.
func Diagnose(r *Result) Diagnosis {
	if r.Failed() {
		return DiagFailed
	}
	f, hasF := r.Score(Faithfulness)
	ar, hasAR := r.Score(AnswerRelevancy)
	rec, hasRec := r.Score(ContextRecall)
	switch {
	case hasRec && rec < DiagLow:
		return DiagRetrieval
	case hasF && f < DiagLow && (!hasRec || rec >= DiagHigh):
		return DiagGeneration
	case hasF && f >= DiagHigh && hasAR && ar < arLow(r):
		return DiagOffTopic
	}
	return DiagOK
}

func arLow(r *Result) float64 {
	if r.AnswerRelevancy != nil && r.AnswerRelevancy.Mode == "answer_similarity" {
		return DiagLowAnswerSimilarity
	}
	return DiagLow
}
