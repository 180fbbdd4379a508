package offline

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/offline/entity"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/internal/memo"
)

// BlindSpots is the offline banner's pointer to where the judge is blind.
const BlindSpots = "blind to paraphrase: docs/offline-judge.md"

// Judge is the offline lexical judge. It is safe for concurrent use.
type Judge struct {
	spans *memo.Memo[[]*span] // analysed context texts
	// A team's lexicon (WithLexicon): evasive phrases and synonyms.
	noncommittal []string
	same         *strings.Replacer
}

// contextCacheSize bounds the cache of analysed contexts, which every metric
// of a sample and often many samples share.
const contextCacheSize = 4096

var (
	_ eval.Judge                 = (*Judge)(nil)
	_ eval.AnswerSimilarityJudge = (*Judge)(nil)
)

// RunnerConfig is how a run should drive the offline judge. Its workers
// outnumber the cores, as a sample's metrics wait on the analysis they
// share (on one core, fewer: ready workers would queue ahead of the store).
// Results wait for the store a commit's worth ahead, so no worker waits on
// its own commit.
func RunnerConfig() (workers, storeAhead int) {
	if p := runtime.GOMAXPROCS(0); p > 1 {
		return max(64, 8*p), 1000
	}
	return 16, 1000
}

// New returns an offline judge.
func New(opts ...Option) *Judge {
	j := &Judge{spans: memo.New[[]*span](contextCacheSize)}
	for _, o := range opts {
		o(j)
	}
	return j
}

// Info names the judge in banners, the TUI header and reports.
func (j *Judge) Info() eval.JudgeInfo {
	return eval.JudgeInfo{Kind: "offline", Name: "offline (lexical)"}
}

// Statements splits the answer into sentences and clauses; a bare yes or
// no is the question's proposition (see StatementsFor).
func (j *Judge) Statements(ctx context.Context, s *eval.Sample) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return StatementsFor(s.Question, s.Answer), nil
}

// Verdicts tests each statement against the retrieved contexts.
func (j *Judge) Verdicts(ctx context.Context, s *eval.Sample, statements []string) ([]eval.StatementVerdict, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s = j.readSample(s)
	sents, ranks := j.rankedSentences(s.Contexts)
	q := analyze(s.Question)
	out := make([]eval.StatementVerdict, len(statements))
	read := j.readAll(statements)
	answer := strings.Join(read, "\n")
	for i, st := range statements {
		ev := verdict(read[i], s.Question, q, sents, answerTopic(read[:i]), answer)
		out[i] = eval.StatementVerdict{Statement: st, Verdict: ev.Verdict, Reason: withChunks(ev, ranks), Evidence: citation(ev, ranks)}
		if ev.Verdict == 0 {
			out[i].Conflict = conflicts[ev.Detector]
		}
	}
	return out, nil
}

// answerTopic is the text of the statements before one, the last three at
// most: what a statement leaves unnamed is named there; "" for the first.
func answerTopic(before []string) string {
	return strings.Join(before[max(0, len(before)-3):], "\n")
}

// conflicts are the trace's names of the detectors.
var conflicts = map[string]string{DetectorNumber: eval.ConflictNumber, DetectorNegation: eval.ConflictNegation, DetectorName: eval.ConflictName}

// ErrNoQuestions is why answer relevancy is unsupported offline.
var ErrNoQuestions = errors.New("the offline judge generates no questions; answer relevancy is unsupported offline")

// Questions always fails with a no_questions status (see ErrNoQuestions).
func (j *Judge) Questions(ctx context.Context, s *eval.Sample, n int) ([]eval.GeneratedQuestion, error) {
	return nil, &eval.StepError{Status: eval.StatusNoQuestions, Err: ErrNoQuestions}
}

// Noncommittal reports whether the answer evades the question, and the
// phrase that showed it.
func (j *Judge) Noncommittal(s *eval.Sample) (bool, string) {
	if ok, p := NoncommittalPhrase(s.Answer); ok || len(j.noncommittal) == 0 {
		return ok, p
	}
	return findPhrase(strings.ToLower(plaintext.StripControls(s.Answer)), j.noncommittal)
}

// findPhrase is the first of phrases that a contains.
func findPhrase(a string, phrases []string) (bool, string) {
	for _, p := range phrases {
		if strings.Contains(a, p) {
			return true, p
		}
	}
	return false, ""
}

// NoncommittalPhrase finds an evasive phrase (不确定, I'm not sure) in an answer.
func NoncommittalPhrase(answer string) (bool, string) {
	return findPhrase(strings.ToLower(strings.ReplaceAll(plaintext.StripControls(answer), "’", "'")), noncommittalPhrases)
}

// ChunkVerdict judges the chunk at rank useful when it supports at least
// one statement of the reference.
func (j *Judge) ChunkVerdict(ctx context.Context, s *eval.Sample, rank int) (eval.ChunkVerdict, error) {
	return j.chunkVerdict(ctx, s, rank, s.Reference, "reference", "context precision")
}

// UtilizationVerdict is ChunkVerdict against the answer's statements.
func (j *Judge) UtilizationVerdict(ctx context.Context, s *eval.Sample, rank int) (eval.ChunkVerdict, error) {
	return j.chunkVerdict(ctx, s, rank, s.Answer, "answer", "context utilization")
}

func (j *Judge) chunkVerdict(ctx context.Context, s *eval.Sample, rank int, target, what, metric string) (eval.ChunkVerdict, error) {
	if err := ctx.Err(); err != nil {
		return eval.ChunkVerdict{}, err
	}
	if rank < 1 || rank > len(s.Contexts) {
		return eval.ChunkVerdict{}, fmt.Errorf("chunk rank %d is out of range: sample %q has %d retrieved contexts", rank, s.ID, len(s.Contexts))
	}
	if strings.TrimSpace(target) == "" {
		return eval.ChunkVerdict{}, eval.NewStepError(eval.StatusMissingInput, "sample %q has no %s: %s needs one", s.ID, what, metric)
	}
	// A chunk is useful when it supports a statement of target, named by what.
	s, target = j.readSample(s), j.read(target)
	refs := SplitStatements(target)
	sents := j.contextSentences(s.Contexts[rank-1 : rank])
	q := analyze(s.Question)
	var best Evidence
	bestRef := ""
	for _, r := range refs {
		ev := support(analyze(r), q, sents)
		if ev.Verdict == 1 {
			return eval.ChunkVerdict{Rank: rank, Verdict: 1, Reason: fmt.Sprintf("supports the %s statement %q: %s", what, clip(r), ev.Reason)}, nil
		}
		if bestRef == "" || ev.Coverage > best.Coverage {
			best, bestRef = ev, r
		}
	}
	if bestRef == "" {
		return eval.ChunkVerdict{Rank: rank, Reason: "the " + what + " has no statements to support"}, nil
	}
	// A statement two chunks support together makes each of them useful.
	all, ranks := j.rankedSentences(s.Contexts)
	for _, r := range refs {
		ev := support(analyze(r), q, all)
		if ev.Verdict == 1 && ev.Also >= 0 && ev.Also < len(ranks) && ev.From >= 0 && ev.From < len(ranks) &&
			ranks[ev.From] != ranks[ev.Also] && (ranks[ev.From] == rank || ranks[ev.Also] == rank) {
			return eval.ChunkVerdict{Rank: rank, Verdict: 1, Reason: fmt.Sprintf("gives part of the %s statement %q, %s", what, clip(r), withChunks(ev, ranks))}, nil
		}
	}
	return eval.ChunkVerdict{Rank: rank, Reason: fmt.Sprintf("supports no %s statement; closest is %q: %s", what, clip(bestRef), best.Reason)}, nil
}

// Classify splits the reference into statements and attributes each to the
// contexts with the support test, at the reference's bar (attribution),
// and marks those it finds in part (foundInPart).
func (j *Judge) Classify(ctx context.Context, s *eval.Sample) ([]eval.Classification, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if strings.TrimSpace(s.Reference) == "" {
		return nil, eval.NewStepError(eval.StatusMissingInput, "sample %q has no reference: context recall needs one", s.ID)
	}
	s = j.readSample(s)
	sents, ranks := j.rankedSentences(s.Contexts)
	q := analyze(s.Question)
	refs := SplitStatements(s.Reference)
	out := make([]eval.Classification, len(refs))
	for i, r := range refs {
		st := analyze(r)
		ev := attribution(st, q, sents)
		found := foundInPart(st, q, ev, sents)
		if found {
			ev.Reason += "; found in part: no evidence that retrieval missed it"
		}
		out[i] = eval.Classification{Statement: r, Attributed: ev.Verdict, Reason: withChunks(ev, ranks), Evidence: citation(ev, ranks), FoundInPart: found}
	}
	return out, nil
}

// ReferenceStatements splits the reference the way Classify does.
func (j *Judge) ReferenceStatements(ctx context.Context, s *eval.Sample) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return SplitStatements(s.Reference), nil
}

// CorrectnessClassify runs the support test both ways: an answer statement
// the reference supports is a TP, else an FP; a reference statement the
// answer does not support is an FN.
func (j *Judge) CorrectnessClassify(ctx context.Context, s *eval.Sample, answer, reference []string) (eval.CorrectnessClasses, error) {
	if err := ctx.Err(); err != nil {
		return eval.CorrectnessClasses{}, err
	}
	q := analyze(j.read(s.Question))
	out := eval.CorrectnessClasses{TP: []eval.CorrectnessItem{}, FP: []eval.CorrectnessItem{}, FN: []eval.CorrectnessItem{}}
	byRef, _ := j.against(q, s.Reference, answer)
	for i, ev := range byRef {
		it := eval.CorrectnessItem{Statement: answer[i], Reason: "against the reference: " + ev.Reason}
		if ev.Verdict == 1 {
			out.TP = append(out.TP, it)
		} else {
			out.FP = append(out.FP, it)
		}
	}
	byAns, _ := j.against(q, s.Answer, reference)
	for i, ev := range byAns {
		if ev.Verdict == 0 {
			out.FN = append(out.FN, eval.CorrectnessItem{Statement: reference[i], Reason: "against the answer: " + ev.Reason})
		}
	}
	return out, nil
}

// Embed returns hashed n-gram vectors, one per text.
func (j *Judge) Embed(ctx context.Context, s *eval.Sample, texts []string) ([][]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := make([][]float64, len(texts))
	for i, t := range texts {
		out[i] = Embed(t)
	}
	return out, nil
}

// rankedSentences are the analysed sentences of the contexts, cached and
// shared (never modified), with the 1-based rank of the chunk each is from.
func (j *Judge) rankedSentences(contexts []string) (sents []*span, ranks []int) {
	for k, c := range contexts {
		sp := j.spans.Get(c, contextSpans)
		sents = append(sents, sp...)
		ranks = append(ranks, slices.Repeat([]int{k + 1}, len(sp))...)
	}
	return sents, ranks
}

// withChunks leads the reason of a pair's support with its chunks.
func withChunks(ev Evidence, ranks []int) string {
	if ev.Also < 0 || ev.Also >= len(ranks) || ev.From < 0 || ev.From >= len(ranks) {
		return ev.Reason
	}
	a, b := ranks[ev.From], ranks[ev.Also]
	if a == b {
		return ev.Reason
	}
	return fmt.Sprintf("supported by [%d] and [%d]: %s", min(a, b), max(a, b), ev.Reason)
}

// citation is the sentence that decided the verdict and its chunk; a 0
// verdict cites its closest or contradicting sentence.
func citation(ev Evidence, ranks []int) *eval.Citation {
	if ev.From < 0 || ev.From >= len(ranks) || ev.Quote == "" {
		return &eval.Citation{}
	}
	return &eval.Citation{Chunk: ranks[ev.From], Quote: ev.Quote}
}

// contextSentences are the sentences of rankedSentences.
func (j *Judge) contextSentences(contexts []string) []*span {
	sents, _ := j.rankedSentences(contexts)
	return sents
}

// Entities lists the entities of a text by surface patterns.
func (j *Judge) Entities(ctx context.Context, s *eval.Sample, text string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return entity.Extract(text), nil
}
