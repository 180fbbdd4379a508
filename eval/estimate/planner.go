package estimate

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/clipperhouse/uax29/v2/sentences"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/cost"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/prompts"
)

// The planner is the judge's client under a dry-run cache: every request
// that reaches it is a call the run would send. It counts the call and its
// prompt tokens and answers with a valid reply of a plausible shape, so the
// engine goes on along the same plan: the verdicts after the statements,
// the embeddings after the questions. Nothing it does leaves the process.

// sampleKey carries the sample (and the statements being judged) from the
// plan judge to the planner: the request alone does not say what the reply
// must hold (one verdict per statement, one classification per reference
// sentence).
type sampleKey struct{}

type sampleCtx struct {
	s          *eval.Sample
	statements []string
	text       string              // context_entity_recall_entities: the text asked about
	crit       *criteria.Criterion // the criterion judged: a rubric's scale, a checklist's items
}

func withSample(ctx context.Context, s *eval.Sample, statements []string) context.Context {
	return context.WithValue(ctx, sampleKey{}, &sampleCtx{s: s, statements: statements})
}

func sampleFrom(ctx context.Context) *sampleCtx {
	sc, _ := ctx.Value(sampleKey{}).(*sampleCtx)
	return cmp.Or(sc, &sampleCtx{s: &eval.Sample{}})
}

// planJudge is the judge with each call's sample put in its context. It
// embeds the eval.Judge interface only, so it never looks like an
// AnswerSimilarityJudge: the LLM judge's plan is the plan of the run.
type planJudge struct{ eval.Judge }

func (j planJudge) Statements(ctx context.Context, s *eval.Sample) ([]string, error) {
	return j.Judge.Statements(withSample(ctx, s, nil), s)
}

func (j planJudge) Verdicts(ctx context.Context, s *eval.Sample, statements []string) ([]eval.StatementVerdict, error) {
	return j.Judge.Verdicts(withSample(ctx, s, statements), s, statements)
}

func (j planJudge) Questions(ctx context.Context, s *eval.Sample, n int) ([]eval.GeneratedQuestion, error) {
	return j.Judge.Questions(withSample(ctx, s, nil), s, n)
}

func (j planJudge) ChunkVerdict(ctx context.Context, s *eval.Sample, rank int) (eval.ChunkVerdict, error) {
	return j.Judge.ChunkVerdict(withSample(ctx, s, nil), s, rank)
}

func (j planJudge) UtilizationVerdict(ctx context.Context, s *eval.Sample, rank int) (eval.ChunkVerdict, error) {
	return j.Judge.UtilizationVerdict(withSample(ctx, s, nil), s, rank)
}

// ReferenceStatements plans the extraction of the reference: the sample
// the planner sees has the reference as its answer, so the plan counts the
// reference's statements.
func (j planJudge) ReferenceStatements(ctx context.Context, s *eval.Sample) ([]string, error) {
	as := *s
	as.Answer = s.Reference
	return j.Judge.ReferenceStatements(withSample(ctx, &as, nil), s)
}

func (j planJudge) CorrectnessClassify(ctx context.Context, s *eval.Sample, answer, reference []string) (eval.CorrectnessClasses, error) {
	return j.Judge.CorrectnessClassify(withSample(ctx, s, answer), s, answer, reference)
}

// Entailment plans a verdict per statement sent, whatever the premise.
func (j planJudge) Entailment(ctx context.Context, s *eval.Sample, premise string, statements []string) ([]eval.StatementVerdict, error) {
	return j.Judge.Entailment(withSample(ctx, s, statements), s, premise, statements)
}

// Entities plans one call per text (the reference, the contexts joined).
func (j planJudge) Entities(ctx context.Context, s *eval.Sample, text string) ([]string, error) {
	return j.Judge.Entities(context.WithValue(ctx, sampleKey{}, &sampleCtx{s: s, text: text}), s, text)
}

func (j planJudge) Classify(ctx context.Context, s *eval.Sample) ([]eval.Classification, error) {
	return j.Judge.Classify(withSample(ctx, s, nil), s)
}

// Standalone and LookBack plan a conversation turn's calls when the judge
// makes them (the LLM judge); a judge that does not is planned as the run
// would find it: no rewrite, nothing backed earlier.
func (j planJudge) Standalone(ctx context.Context, s *eval.Sample) (string, error) {
	if cj, ok := j.Judge.(eval.ConversationJudge); ok {
		return cj.Standalone(withSample(ctx, s, nil), s)
	}
	return "", eval.NewStepError(eval.StatusUnsupported, "the judge cannot rewrite questions")
}

func (j planJudge) LookBack(ctx context.Context, s *eval.Sample, statements []string) ([]eval.HistoryVerdict, bool, error) {
	if cj, ok := j.Judge.(eval.ConversationJudge); ok {
		return cj.LookBack(withSample(ctx, s, statements), s, statements)
	}
	return make([]eval.HistoryVerdict, len(statements)), false, nil
}

// Criterion plans a criterion the LLM judges: the planner's reply must
// fit its scale or its items.
func (j planJudge) Criterion(ctx context.Context, s *eval.Sample, c *criteria.Criterion) (*criteria.Trace, error) {
	cj, ok := j.Judge.(eval.CriteriaJudge)
	if !ok {
		return nil, eval.NewStepError(eval.StatusUnsupported, "a %s criterion needs an LLM judge", c.Kind)
	}
	return cj.Criterion(context.WithValue(ctx, sampleKey{}, &sampleCtx{s: s, crit: c}), s, c)
}

// taskCount is what the planner counted of one task.
type taskCount struct {
	calls   atomic.Int64
	choices atomic.Int64 // replies asked for: n per question request, 1 otherwise
	// guess is the completion tokens of the planner's own replies, the
	// estimate when no past reply of the task is known.
	guess atomic.Int64
}

type planner struct {
	chat, embed *cost.Memo
	tasks       map[string]*taskCount // fixed at creation: read without a lock
	oneChoice   bool                  // answer one choice whatever n asks (Config.OneChoice)
}

func newPlanner(chatModel, embedModel string) *planner {
	p := &planner{chat: cost.For(chatModel).Memo(), embed: cost.For(embedModel).Memo(), tasks: map[string]*taskCount{}}
	for _, t := range append(append([]string{}, prompts.Tasks...), eval.TaskEmbeddings, otherTask) {
		p.tasks[t] = &taskCount{}
	}
	return p
}

// otherTask counts requests of a task the planner does not know (a newer
// judge's): they are counted, and answered with an error.
const otherTask = "other"

// choices is how many choices the endpoint answers req with.
func (p *planner) choices(req eval.ChatRequest) int {
	if p.oneChoice {
		return 1
	}
	return max(req.N, 1)
}

func (p *planner) task(name string) *taskCount {
	if t, ok := p.tasks[name]; ok {
		return t
	}
	return p.tasks[otherTask]
}

// plannedMark ends a planned question: the embedding of such a text is
// counted as the question it stands for (a generated question is about as
// long as the asked one), and no cached embedding can ever match it.
const plannedMark = "\x00ragscope-planned-question:"

func (p *planner) Chat(ctx context.Context, req eval.ChatRequest) (eval.ChatResponse, error) {
	t := p.task(req.Task)
	t.calls.Add(1)
	prompt := p.chat.Chat(req.Messages)
	sc := sampleFrom(ctx)
	s := sc.s
	lang := prompts.DetectLang(s.Question, s.Answer)
	n, planned := 1, "" // planned: the id of answer relevancy's planned questions
	var content any
	switch req.Task {
	case prompts.TaskFaithfulnessStatements:
		content = map[string]any{"statements": sentencesOf(s.Answer)}
	case prompts.TaskFaithfulnessVerdicts:
		content = map[string]any{"statements": allEntailed(sc.statements, lang)}
	case prompts.TaskAnswerRelevancyQuestion:
		n = p.choices(req)
		// What the judge would write, for the guess; the replies carry a
		// planned question instead (below).
		content = map[string]any{"question": s.Question, "noncommittal": 0}
		// The request's key, so identical requests plan identical
		// questions (the cache answers the second in the run) and others
		// never share one.
		planned = req.Key()[:16]
	case prompts.TaskContextPrecisionVerdict, prompts.TaskContextUtilizationVerdict:
		content = map[string]any{"reason": reason(lang), "verdict": 1}
	case prompts.TaskContextRecallClassifications:
		type class struct {
			Statement  string `json:"statement"`
			Reason     string `json:"reason"`
			Attributed int    `json:"attributed"`
		}
		var cs []class
		for _, st := range sentencesOf(s.Reference) {
			cs = append(cs, class{st, reason(lang), 1})
		}
		content = map[string]any{"classifications": cs}
	case prompts.TaskAnswerCorrectnessClassifications:
		// Every answer statement a TP: the reply's length, which is what
		// costs, is that of the statements sent.
		tp := []eval.CorrectnessItem{}
		for _, st := range sc.statements {
			tp = append(tp, eval.CorrectnessItem{Statement: st, Reason: reason(lang)})
		}
		content = map[string]any{"TP": tp, "FP": []eval.CorrectnessItem{}, "FN": []eval.CorrectnessItem{}}
	case prompts.TaskEntailmentVerdicts:
		// Every statement entailed: the calls of factual correctness and
		// noise sensitivity do not depend on the verdicts, only on there
		// being statements, and the reply's length is that of the
		// statements sent.
		content = map[string]any{"verdicts": allEntailed(sc.statements, lang)}
	case prompts.TaskContextEntityRecallEntities:
		content = map[string]any{"entities": plannedEntities(sc.text)}
	case prompts.TaskConversationStandalone:
		// About as long as the question asked, which it rewrites.
		content = map[string]any{"question": s.Question}
	case prompts.TaskConversationHistoryVerdict:
		// Nothing backed earlier: the reply's length is that of the
		// statements sent, and no verdict changes what is called next.
		type look struct {
			Statement   string `json:"statement"`
			Reason      string `json:"reason"`
			Source      string `json:"source"`
			Turn        *int   `json:"turn"`
			Contradicts *int   `json:"contradicts"`
		}
		items := make([]look, len(sc.statements))
		for i, st := range sc.statements {
			items[i] = look{Statement: st, Reason: reason(lang), Source: "none"}
		}
		content = map[string]any{"statements": items}
	case prompts.TaskCriterionYesNo:
		// A yes per draw: the draws are the criterion's strictness
		// whatever they say, in one request with n or one each.
		n = p.choices(req)
		content = map[string]any{"quote": quoteOf(s.Answer), "reason": reason(lang), "verdict": 1}
	case prompts.TaskCriterionRubric:
		// The top of the criterion's scale: a level off it would be retried.
		level := 0
		if c := sc.crit; c != nil && len(c.Levels) > 0 {
			level = c.Levels[len(c.Levels)-1].Score
		}
		content = map[string]any{"quote": quoteOf(s.Answer), "reason": reason(lang), "level": level}
	case prompts.TaskCriterionChecklist:
		// One met item per item asked: a reply of another length is asked again.
		items := []map[string]any{}
		if c := sc.crit; c != nil {
			for _, it := range c.Items {
				items = append(items, map[string]any{"item": it.In(lang), "quote": quoteOf(s.Answer), "reason": reason(lang), "verdict": 1})
			}
		}
		content = map[string]any{"items": items}
	default:
		return eval.ChatResponse{}, eval.NewStepError(eval.StatusJudgeError, "the cost estimate knows no judge task %q", req.Task)
	}
	t.choices.Add(int64(n))
	t.guess.Add(int64(n * p.chat.Count(mustJSON(content))))
	// The prompt tokens ride on the reply so that the run's own usage
	// accounting bills them to the metric that asked (no completion
	// tokens: the planner's replies are no history of what a judge writes).
	resp := eval.ChatResponse{Choices: make([]string, n), FinishReasons: make([]string, n), Usage: eval.Usage{PromptTokens: prompt}}
	for i := range resp.Choices {
		resp.Choices[i], resp.FinishReasons[i] = mustJSON(content), "stop"
		if planned != "" {
			resp.Choices[i] = mustJSON(map[string]any{
				"question":     fmt.Sprintf("%s%s%s-%d-%d", s.Question, plannedMark, planned, req.Draw, i),
				"noncommittal": 0,
			})
		}
	}
	return resp, nil
}

func (p *planner) Embed(ctx context.Context, req eval.EmbedRequest) (eval.EmbedResponse, error) {
	t := p.tasks[eval.TaskEmbeddings]
	t.calls.Add(1)
	t.choices.Add(1)
	tokens := 0
	for _, text := range req.Texts {
		if q, _, planned := strings.Cut(text, plannedMark); planned {
			text = q
		}
		tokens += p.embed.Count(text)
	}
	dims := req.Dimensions
	if dims <= 0 {
		dims = 8
	}
	v := make([]float64, dims)
	for i := range v {
		v[i] = 1 / float64(i+1)
	}
	out := eval.EmbedResponse{Vectors: make([][]float64, len(req.Texts)), Usage: eval.Usage{PromptTokens: tokens}}
	for i := range out.Vectors {
		out.Vectors[i] = v // read only, by the cache and the cosines
	}
	return out, nil
}

// verdict is one planned verdict of faithfulness_verdicts or
// entailment_verdicts, whose items have this shape.
type verdict struct {
	Statement string `json:"statement"`
	Reason    string `json:"reason"`
	Verdict   int    `json:"verdict"`
}

// allEntailed is a verdict 1 for every statement: the calls of the
// metrics do not depend on the verdicts, and the reply's length is that
// of the statements sent.
func allEntailed(statements []string, lang string) []verdict {
	vs := make([]verdict, len(statements))
	for i, st := range statements {
		vs[i] = verdict{st, reason(lang), 1}
	}
	return vs
}

// plannedEntities is a plausible entity list of a text, for the length of
// the reply: its distinct words that start with a capital letter or a
// digit, each at most 12 characters (a Chinese text has no spaces to cut
// words at).
func plannedEntities(text string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, w := range strings.Fields(text) {
		w = strings.TrimFunc(w, unicode.IsPunct)
		if r := []rune(w); len(r) > 12 {
			w = string(r[:12])
		}
		if w == "" || seen[w] {
			continue
		}
		if c := []rune(w)[0]; unicode.IsUpper(c) || unicode.IsDigit(c) {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// sentencesOf is what a judge would make of a text as statements: its
// sentences, or the whole text when it has no sentence break. A text with
// content always yields one, so the verdict call that follows the
// statements is planned (a judge that extracts none skips it: see notes).
func sentencesOf(text string) []string {
	out := []string{}
	it := sentences.FromString(text)
	for it.Next() {
		for _, piece := range strings.FieldsFunc(it.Value(), func(r rune) bool { return r == '\n' || r == '；' || r == ';' }) {
			if piece = strings.TrimSpace(piece); piece != "" {
				out = append(out, piece)
			}
		}
	}
	if len(out) == 0 && strings.TrimSpace(text) != "" {
		out = append(out, strings.TrimSpace(text))
	}
	return out
}

// quoteOf is what a criterion's reply quotes of the answer: its first
// sentence, for the reply's length.
func quoteOf(answer string) string {
	if ss := sentencesOf(answer); len(ss) > 0 {
		return ss[0]
	}
	return ""
}

// reason is a verdict's reason of a typical length, in the sample's language.
func reason(lang string) string {
	if lang == "zh" {
		return "检索到的上下文直接说明了这一点，因此可以从上下文中推断出来。"
	}
	return "The retrieved context states this directly, so it can be inferred from the context."
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of strings and ints
	}
	return string(b)
}
