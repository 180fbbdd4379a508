// Package llm is the LLM judge: it renders the judge prompts, sends them
// through an eval.ChatClient with a structured-output response format, and
// parses the replies into the metrics' intermediate results.
package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/prompts"
)

// Config configures the LLM judge.
type Config struct {
	BaseURL        string // for reports; the cache key uses eval.EndpointOf(BaseURL)
	Model          string
	EmbeddingModel string
	// EmbeddingBaseURL is where embeddings are asked when they are not
	// served by BaseURL (DeepSeek has no embeddings API; a vLLM server serves
	// one model). Empty: BaseURL.
	EmbeddingBaseURL string
	Dimensions       int // embedding dimensions, 0 = the model's default
	// ResponseFormat is json_schema, json_object or text, as the user
	// fixed it; "" starts from what Abilities knows (json_schema when
	// nothing) and falls back when the endpoint refuses it.
	ResponseFormat string
	// Reasoning is the thinking switch: "auto" or "" (send none), "off"
	// or "on".
	Reasoning string
	// Abilities is what is known of the endpoint, shared with its client
	// and updated as calls learn; nil: a new one.
	Abilities *endpoint.Abilities
	// Temperature of the verdict and extraction calls; sent explicitly even
	// when 0 (see the client's body rewrite).
	Temperature float32
	// QuestionTemperature is used for answer relevancy's draws, which must
	// differ from each other to be worth averaging.
	QuestionTemperature float32
	// NoN disables the `n` parameter: the strictness draws are then sent as
	// separate requests. With n, a reply with fewer choices than asked (an
	// endpoint that ignores n) is completed with separate draws.
	NoN       bool
	MaxTokens int
	Lang      eval.Lang
}

// Judge implements eval.Judge over a chat client.
type Judge struct {
	cfg           Config
	endpoint      string
	embedEndpoint string
	client        eval.ChatClient
	prompts       *prompts.Set
}

// New returns an LLM judge.
func New(cfg Config, client eval.ChatClient, set *prompts.Set) *Judge {
	if cfg.Abilities == nil {
		cfg.Abilities = endpoint.NewAbilities(endpoint.EndpointProfile{}, cfg.ResponseFormat)
	}
	if cfg.Reasoning == "auto" {
		cfg.Reasoning = ""
	}
	cfg.Lang = cmp.Or(cfg.Lang, eval.LangAuto)
	embed := cmp.Or(cfg.EmbeddingBaseURL, cfg.BaseURL)
	return &Judge{cfg: cfg, endpoint: eval.EndpointOf(cfg.BaseURL), embedEndpoint: eval.EndpointOf(embed), client: client, prompts: set}
}

// Info implements eval.Judge.
func (j *Judge) Info() eval.JudgeInfo {
	return eval.JudgeInfo{Kind: "llm", Name: j.cfg.Model, BaseURL: redactURL(j.cfg.BaseURL), Model: j.cfg.Model, EmbeddingModel: j.cfg.EmbeddingModel}
}

func (j *Judge) lang(s *eval.Sample) string {
	if j.cfg.Lang != eval.LangAuto {
		return string(j.cfg.Lang)
	}
	return prompts.DetectLang(s.Question, s.Answer)
}

// Abilities is what the judge knows of its endpoint.
func (j *Judge) Abilities() *endpoint.Abilities { return j.cfg.Abilities }

// request builds the canonical request of a task for a sample, in the
// response format the endpoint is known to take.
func (j *Judge) request(s *eval.Sample, task string, d prompts.Data) (eval.ChatRequest, error) {
	lang := j.lang(s)
	text, err := j.prompts.Render(task, lang, d)
	if err != nil {
		return eval.ChatRequest{}, eval.NewStepError(eval.StatusJudgeError, "rendering the %s prompt: %v", task, err)
	}
	req := eval.ChatRequest{
		Endpoint:    j.endpoint,
		Model:       j.cfg.Model,
		Messages:    []eval.Message{{Role: "user", Content: text}},
		Temperature: j.cfg.Temperature,
		MaxTokens:   j.cfg.MaxTokens,
		Reasoning:   j.cfg.Reasoning,
		Task:        task,
		Lang:        lang,
		Sample:      s.Index,
	}
	withFormat(&req, j.cfg.Abilities.Format())
	return req, nil
}

// withFormat sets a request's response format. With plain text the
// schema goes into the prompt: the server holds the reply to nothing.
func withFormat(req *eval.ChatRequest, format string) {
	schema := Schema(req.Task)
	switch format {
	case "json_schema":
		req.ResponseFormat = eval.ResponseFormat{Type: "json_schema", Name: req.Task, Schema: schema}
	case "text":
		req.ResponseFormat = eval.ResponseFormat{Type: "text"}
		// The messages may be shared with other requests (a draw is a
		// copy of the base request): the schema goes into a copy.
		req.Messages = slices.Clone(req.Messages)
		ask := "\n\nReply with one JSON object and nothing else. It must follow this JSON Schema:\n"
		if req.Lang == "zh" {
			ask = "\n\n只输出一个 JSON 对象，不要输出其他文字。它必须符合以下 JSON Schema：\n"
		}
		req.Messages[0].Content += ask + string(schema)
	default:
		req.ResponseFormat = eval.ResponseFormat{Type: format}
	}
}

// chat sends a request in the endpoint's best response format. A refusal
// of the format (a 400 or 422 that names it) moves the endpoint's profile
// one step down — json_schema, json_object, text — and the request is sent
// again in the new format: a first call that is refused costs the run
// nothing but that call.
func (j *Judge) chat(ctx context.Context, req eval.ChatRequest) (eval.ChatResponse, error) {
	if cur := j.cfg.Abilities.Format(); cur != req.ResponseFormat.Type && req.ResponseFormat.Type != "text" {
		withFormat(&req, cur) // another call found the format refused
	}
	for {
		resp, err := j.client.Chat(ctx, req)
		if err == nil || !RefusedFormat(err) {
			return resp, err
		}
		next, ok, changed := j.cfg.Abilities.Downgrade(req.ResponseFormat.Type, clip(err.Error(), 300))
		if !ok || next == req.ResponseFormat.Type {
			return resp, err
		}
		if changed {
			eval.ReportNotice(ctx, j.cfg.Abilities.Notice())
		}
		// Only json_schema and json_object step down: the messages hold
		// no schema yet.
		withFormat(&req, next)
	}
}

// RefusedFormat tells an endpoint that does not take the response format
// asked: a 400 or 422 that names it (DeepSeek: "This response_format type
// is unavailable now", deepseek-reasoner: "does not support Json Output";
// LM Studio: "'response_format.type' must be 'json_schema' or 'text'";
// llama.cpp, a schema its grammar cannot hold: "failed to parse grammar";
// servers without structured output: unknown response_format, json_schema
// not supported).
func RefusedFormat(err error) bool {
	// Only the server's status and words count: a parse error quoting a
	// reply, or a host whose port has 400 in it, must not step down.
	var f *endpoint.Failure
	if !errors.As(err, &f) || (f.Status != 400 && f.Status != 422) {
		return false
	}
	msg := strings.ToLower(f.ServerMessage)
	if strings.Contains(msg, "failed_generation") || strings.Contains(msg, "generated json does not match") {
		return false // Groq: the model's reply failed the format, not the format refused
	}
	return slices.ContainsFunc([]string{"response_format", "response format", "json_schema", "json_object", "schema", "json output", "grammar"},
		func(w string) bool { return strings.Contains(msg, w) })
}

// ask renders task's prompt for a sample and sends it.
func ask[T any](ctx context.Context, j *Judge, s *eval.Sample, task string, d prompts.Data, check func(*T) error) (*T, eval.ChatResponse, error) {
	req, err := j.request(s, task, d)
	if err != nil {
		return nil, eval.ChatResponse{}, err
	}
	return send(ctx, j, req, check)
}

// send makes a call and decodes its first choice into out. validate checks a
// decoded reply; a reply that fails it is retried below the cache (and never
// cached), and ends as parse_error when retries run out.
func send[T any](ctx context.Context, j *Judge, req eval.ChatRequest, check func(*T) error) (*T, eval.ChatResponse, error) {
	req.Validate = validator(check)
	resp, err := j.chat(ctx, req)
	if err != nil {
		return nil, resp, err
	}
	if len(resp.Choices) == 0 {
		return nil, resp, eval.NewStepError(eval.StatusParseError, "%s: the judge returned no choices", req.Task)
	}
	out, err := decode(resp.Choices[0], check)
	if err != nil {
		return nil, resp, eval.NewStepError(eval.StatusParseError, "%s: %v", req.Task, err)
	}
	return out, resp, nil
}

// validator checks a raw reply the way decode would; the retrying client
// runs it on every choice, so a malformed reply is retried and never cached.
func validator[T any](check func(*T) error) func(string) error {
	return func(content string) error {
		_, err := decode(content, check)
		return err
	}
}

func decode[T any](content string, check func(*T) error) (*T, error) {
	raw, err := ExtractJSON(content)
	if err != nil {
		return nil, err
	}
	out := new(T)
	if err := json.Unmarshal([]byte(raw), out); err != nil {
		return nil, fmt.Errorf("reply does not match the schema: %v (reply: %s)", err, clip(content, 200))
	}
	if check != nil {
		if err := check(out); err != nil {
			return nil, fmt.Errorf("%v (reply: %s)", err, clip(content, 200))
		}
	}
	return out, nil
}

// checkList holds a reply's list to its contract: the key is there (an
// empty list is an answer, a missing key is not), and, when bitOf is set,
// each item's 0/1 field named flag reads as 0 or 1.
func checkList[T any](key string, items []T, flag string, bitOf func(T) *bit) error {
	if items == nil {
		return fmt.Errorf("missing field %q", key)
	}
	if bitOf == nil {
		return nil
	}
	for i, it := range items {
		if err := binary(flag, bitOf(it)); err != nil {
			return fmt.Errorf("%s[%d]: %v", key, i, err)
		}
	}
	return nil
}

func verdictOf(v verdictItem) *bit { return v.Verdict }

func binary(name string, v *bit) error {
	if v == nil {
		return fmt.Errorf("missing field %q", name)
	}
	if !v.ok {
		return fmt.Errorf("field %q is %s, want 0 or 1", name, v.raw)
	}
	return nil
}

// Statements implements eval.Judge (faithfulness_statements).
func (j *Judge) Statements(ctx context.Context, s *eval.Sample) ([]string, error) {
	return j.statements(ctx, s, s.Answer)
}

// ReferenceStatements implements eval.Judge: the same task as the answer's
// statements with the reference as the text. One task, so one prompt to
// tune, and a reference that is also some sample's answer is paid once.
func (j *Judge) ReferenceStatements(ctx context.Context, s *eval.Sample) ([]string, error) {
	return j.statements(ctx, s, s.Reference)
}

func (j *Judge) statements(ctx context.Context, s *eval.Sample, text string) ([]string, error) {
	d := prompts.Data{Question: s.Question, Answer: text}
	if text == s.Answer {
		// A turn's answer is split with the conversation before it in
		// view, so that "it does not change" is written out in full.
		d.History = history(s)
	}
	out, _, err := ask(ctx, j, s, prompts.TaskFaithfulnessStatements, d, func(r *statementsReply) error {
		return checkList("statements", r.Statements, "", nil)
	})
	if err != nil {
		return nil, err
	}
	return trimmed(out.Statements), nil
}

// trimmed is xs trimmed, without the empty ones; nil when none is left.
func trimmed(xs []string) []string {
	var out []string
	for _, x := range xs {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// Verdicts implements eval.Judge (faithfulness_verdicts). The judge must
// answer every numbered statement; a reply of the wrong length is re-asked
// once with the count spelled out, then ends as parse_error.
func (j *Judge) Verdicts(ctx context.Context, s *eval.Sample, statements []string) ([]eval.StatementVerdict, error) {
	return j.verdicts(ctx, s, prompts.TaskFaithfulnessVerdicts, prompts.Data{Question: s.Question, Answer: s.Answer, Contexts: s.Contexts, Statements: statements})
}

// verdicts asks task for a verdict on each of d's statements: listed
// under "statements" with their evidence (faithfulness_verdicts), or under
// "verdicts" without (entailment_verdicts, whose schema asks for none and
// none is read).
func (j *Judge) verdicts(ctx context.Context, s *eval.Sample, task string, d prompts.Data) ([]eval.StatementVerdict, error) {
	entail := task == prompts.TaskEntailmentVerdicts
	key, list := "statements", func(r *verdictsReply) []verdictItem { return r.Statements }
	if entail {
		key, list = "verdicts", func(r *verdictsReply) []verdictItem { return r.Verdicts }
	}
	check := func(r *verdictsReply) error {
		if err := checkList(key, list(r), "verdict", verdictOf); err != nil {
			return err
		}
		return inSentOrder(key, list(r), func(v verdictItem) string { return v.Statement }, d.Statements)
	}
	out, err := sendCounted(ctx, j, s, task, d, check, func(r *verdictsReply) int { return len(list(r)) })
	if err != nil {
		return nil, err
	}
	verdicts := make([]eval.StatementVerdict, len(d.Statements))
	for i, v := range list(out) {
		// The statement we sent is the one scored; the judge's echo may be paraphrased.
		verdicts[i] = eval.StatementVerdict{Statement: d.Statements[i], Verdict: v.Verdict.n, Reason: strings.TrimSpace(v.Reason)}
		if !entail {
			verdicts[i].Evidence = v.citation()
		}
	}
	return verdicts, nil
}

// inSentOrder puts the verdicts in the order of the statements sent when
// the judge echoed every one as sent but answered them in another order
// (local models do); one that echoes another place's statement where the
// echoes are no such reordering is an error, since which verdict is whose
// cannot be told. A paraphrased echo says nothing: its place decides.
func inSentOrder[T any](key string, items []T, echo func(T) string, sent []string) error {
	if len(items) != len(sent) {
		return nil // re-asked with the count (sendCounted)
	}
	place := make(map[string]int, len(sent))
	for i, st := range sent {
		if _, twice := place[echoKey(st)]; twice {
			place[echoKey(st)] = -1 // written twice: no echo tells them apart
		} else {
			place[echoKey(st)] = i
		}
	}
	at, moved, all := make([]int, len(items)), false, true
	for i, it := range items {
		j, ok := place[echoKey(echo(it))]
		if !ok || j < 0 {
			at[i], all = -1, false
			continue
		}
		at[i], moved = j, moved || j != i
	}
	if !moved {
		return nil
	}
	if !all {
		for i, j := range at {
			if j >= 0 && j != i {
				return fmt.Errorf("%s[%d] echoes number %d of those sent: the reply answers them out of order, and not every one can be placed", key, i, j+1)
			}
		}
	}
	seen := make([]bool, len(sent))
	for i, j := range at {
		if seen[j] {
			return fmt.Errorf("%s[%d] answers number %d of those sent again, and another is not answered", key, i, j+1)
		}
		seen[j] = true
	}
	placed := make([]T, len(items))
	for i, j := range at {
		placed[j] = items[i]
	}
	copy(items, placed)
	return nil
}

// echoKey is a statement as its echo is compared: spaces and case aside.
func echoKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// sendCounted asks task, whose reply must hold one verdict per statement
// (or checklist item) of d (count reads how many it holds). A reply of the
// wrong length is re-asked once with the count spelled out, then ends as
// parse_error.
func sendCounted[T any](ctx context.Context, j *Judge, s *eval.Sample, task string, d prompts.Data, check func(*T) error, count func(*T) int) (*T, error) {
	req, err := j.request(s, task, d)
	if err != nil {
		return nil, err
	}
	want := max(len(d.Statements), len(d.Items))
	out, resp, err := send(ctx, j, req, check)
	if err != nil {
		return nil, err
	}
	if count(out) == want {
		return out, nil
	}
	first := count(out)
	req.Messages = append(req.Messages,
		eval.Message{Role: "assistant", Content: resp.Choices[0]},
		eval.Message{Role: "user", Content: recount(j.lang(s), first, want)})
	out, _, err = send(ctx, j, req, check)
	if err != nil {
		return nil, err
	}
	if count(out) != want {
		return nil, eval.NewStepError(eval.StatusParseError,
			"%s: %d statements were sent but the judge returned %d verdicts, then %d when asked again",
			req.Task, want, first, count(out))
	}
	return out, nil
}

func recount(lang string, got, want int) string {
	if lang == "zh" {
		return fmt.Sprintf("你的回复包含 %d 条判定，但我们发送了 %d 条编号陈述。请按编号顺序为每一条陈述恰好给出一条判定，共 %d 条，只输出 JSON。", got, want, want)
	}
	return fmt.Sprintf("Your reply has %d verdicts but %d numbered statements were sent. Return exactly %d verdicts, one per numbered statement, in order, as JSON only.", got, want, want)
}

// Questions implements eval.Judge (answer_relevancy_question).
func (j *Judge) Questions(ctx context.Context, s *eval.Sample, n int) ([]eval.GeneratedQuestion, error) {
	base, err := j.request(s, prompts.TaskAnswerRelevancyQuestion, prompts.Data{Question: s.Question, Answer: s.Answer, Contexts: s.Contexts})
	if err != nil {
		return nil, err
	}
	base.Temperature = j.cfg.QuestionTemperature
	var out []eval.GeneratedQuestion
	err = draw(ctx, j, base, n, checkQuestion, func(q *questionReply) {
		out = append(out, eval.GeneratedQuestion{Question: strings.TrimSpace(*q.Question), Noncommittal: q.Noncommittal.n})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// draw asks base for n replies: in one request with n choices where the
// endpoint honours n, else (and for the choices still missing) one request
// per draw, each with its own draw index and seed, so each is its own
// request and its own cache entry, never one reply reused. keep is given
// each of the n replies, decoded and checked.
func draw[T any](ctx context.Context, j *Judge, base eval.ChatRequest, n int, check func(*T) error, keep func(*T)) error {
	base.Validate = validator(check)
	got := 0
	take := func(content string) error {
		r, err := decode(content, check)
		if err != nil {
			return eval.NewStepError(eval.StatusParseError, "%s: %v", base.Task, err)
		}
		if got < n {
			keep(r)
			got++
		}
		return nil
	}
	// The request asks for n even of an endpoint known to give one choice
	// (the client leaves n off the wire there): it is the request an
	// earlier run sent and cached, before it learned that.
	if !j.cfg.NoN && n > 1 {
		req := base
		req.N = n
		resp, err := j.chat(ctx, req)
		if err != nil {
			return err
		}
		if len(resp.Choices) < n && j.cfg.Abilities.IgnoredN() {
			eval.ReportNotice(ctx, j.cfg.Abilities.Notice())
		}
		for _, c := range resp.Choices {
			if err := take(c); err != nil {
				return err
			}
		}
	}
	for d := got + 1; got < n; d++ {
		req := base
		req.Draw, req.Seed = d, &d // d is this iteration's own
		resp, err := j.chat(ctx, req)
		if err != nil {
			return err
		}
		if len(resp.Choices) == 0 {
			return eval.NewStepError(eval.StatusParseError, "%s: the judge returned no choices", base.Task)
		}
		if err := take(resp.Choices[0]); err != nil {
			return err
		}
	}
	return nil
}

// checkQuestion is the reply contract of answer_relevancy_question.
func checkQuestion(r *questionReply) error {
	if r.Question == nil {
		return errors.New(`missing field "question"`)
	}
	return binary("noncommittal", r.Noncommittal)
}

// ReadsQuestionReply reports whether a reply to answer_relevancy_question
// reads the way the judge reads it in a run (reasoning removed, almost-JSON
// repaired, the contract held): what `ragscope check` asks.
func ReadsQuestionReply(content string) error {
	_, err := decode(content, checkQuestion)
	return err
}

// ChunkVerdict implements eval.Judge (context_precision_verdict).
func (j *Judge) ChunkVerdict(ctx context.Context, s *eval.Sample, rank int) (eval.ChunkVerdict, error) {
	return j.chunkVerdict(ctx, s, rank, prompts.TaskContextPrecisionVerdict)
}

// UtilizationVerdict implements eval.Judge (context_utilization_verdict):
// the chunk verdict of context precision, asked of the answer.
func (j *Judge) UtilizationVerdict(ctx context.Context, s *eval.Sample, rank int) (eval.ChunkVerdict, error) {
	return j.chunkVerdict(ctx, s, rank, prompts.TaskContextUtilizationVerdict)
}

// chunkVerdict asks task, a one-chunk verdict ({"reason", "verdict"}),
// of the chunk at rank; the template decides what it is judged against.
func (j *Judge) chunkVerdict(ctx context.Context, s *eval.Sample, rank int, task string) (eval.ChunkVerdict, error) {
	out, resp, err := ask(ctx, j, s, task, prompts.Data{
		Question: s.Question, Answer: s.Answer, Reference: s.Reference, Contexts: s.Contexts,
		Chunk: s.Contexts[rank-1], Rank: rank,
	}, func(r *reasonedVerdict) error { return binary("verdict", r.Verdict) })
	if err != nil {
		return eval.ChunkVerdict{}, err
	}
	return eval.ChunkVerdict{Rank: rank, Verdict: out.Verdict.n, Reason: strings.TrimSpace(out.Reason), Reasoning: eval.ReasoningPreview(resp)}, nil
}

// Classify implements eval.Judge (context_recall_classifications).
func (j *Judge) Classify(ctx context.Context, s *eval.Sample) ([]eval.Classification, error) {
	out, _, err := ask(ctx, j, s, prompts.TaskContextRecallClassifications, prompts.Data{
		Question: s.Question, Answer: s.Answer, Reference: s.Reference, Contexts: s.Contexts,
	}, func(r *classificationsReply) error {
		return checkList("classifications", r.Classifications, "attributed", func(c classificationItem) *bit { return c.Attributed })
	})
	if err != nil {
		return nil, err
	}
	cls := make([]eval.Classification, 0, len(out.Classifications))
	for _, c := range out.Classifications {
		if st := strings.TrimSpace(c.Statement); st != "" {
			cls = append(cls, eval.Classification{Statement: st, Attributed: c.Attributed.n, Reason: strings.TrimSpace(c.Reason), Evidence: c.citation()})
		}
	}
	return cls, nil
}

// CorrectnessClassify implements eval.Judge (answer_correctness_classifications).
func (j *Judge) CorrectnessClassify(ctx context.Context, s *eval.Sample, answer, reference []string) (eval.CorrectnessClasses, error) {
	out, _, err := ask(ctx, j, s, prompts.TaskAnswerCorrectnessClassifications, prompts.Data{
		Question: s.Question, Answer: s.Answer, Reference: s.Reference, Statements: answer, ReferenceStatements: reference,
	}, func(r *correctnessReply) error {
		if err := cmp.Or(checkList("TP", r.TP, "", nil), checkList("FP", r.FP, "", nil), checkList("FN", r.FN, "", nil)); err != nil {
			return err
		}
		// Every answer statement is in TP or FP, once; FN holds reference
		// statements only: another count is a score the definition cannot give.
		if n := len(r.TP) + len(r.FP); n != len(answer) {
			return fmt.Errorf("TP and FP hold %d statements, but %d answer statements were sent: each belongs in exactly one of them", n, len(answer))
		}
		// An echo that is a sent statement says which: none may be twice.
		sent, seen := map[string]bool{}, map[string]bool{}
		for _, st := range answer {
			sent[echoKey(st)] = true
		}
		for _, it := range slices.Concat(r.TP, r.FP) {
			if k := echoKey(it.Statement); sent[k] && seen[k] {
				return fmt.Errorf("the answer statement %q is in TP or FP twice, and another in neither", it.Statement)
			} else if sent[k] {
				seen[k] = true
			}
		}
		if len(r.FN) > len(reference) {
			return fmt.Errorf("FN holds %d statements, but the reference has %d", len(r.FN), len(reference))
		}
		return nil
	})
	if err != nil {
		return eval.CorrectnessClasses{}, err
	}
	conv := func(in []correctnessItem) []eval.CorrectnessItem {
		res := []eval.CorrectnessItem{}
		for _, c := range in {
			if st := strings.TrimSpace(c.Statement); st != "" {
				res = append(res, eval.CorrectnessItem{Statement: st, Reason: strings.TrimSpace(c.Reason)})
			}
		}
		return res
	}
	return eval.CorrectnessClasses{TP: conv(out.TP), FP: conv(out.FP), FN: conv(out.FN)}, nil
}

// Entities implements eval.Judge (context_entity_recall_entities): the
// entities of one text, trimmed, without empty ones, in the judge's order.
// A reply without the "entities" key is a parse error (retried below the
// cache, never scored); an empty list is an answer (no entity).
func (j *Judge) Entities(ctx context.Context, s *eval.Sample, text string) ([]string, error) {
	out, _, err := ask(ctx, j, s, prompts.TaskContextEntityRecallEntities, prompts.Data{Text: text}, func(r *entitiesReply) error {
		return checkList("entities", r.Entities, "", nil)
	})
	if err != nil {
		return nil, err
	}
	return append([]string{}, trimmed(out.Entities)...), nil
}

// Entailment implements eval.Judge (entailment_verdicts): each statement
// judged against the premise text alone. The prompt shows no question, so
// the same check asked by factual correctness and by noise sensitivity is
// one request, paid for once through the cache. No statement makes no call.
func (j *Judge) Entailment(ctx context.Context, s *eval.Sample, premise string, statements []string) ([]eval.StatementVerdict, error) {
	if len(statements) == 0 {
		return []eval.StatementVerdict{}, nil
	}
	return j.verdicts(ctx, s, prompts.TaskEntailmentVerdicts, prompts.Data{Text: premise, Statements: statements})
}

// Embed implements eval.Judge: all texts of a sample go in one request.
func (j *Judge) Embed(ctx context.Context, s *eval.Sample, texts []string) ([][]float64, error) {
	resp, err := j.client.Embed(ctx, eval.EmbedRequest{
		Endpoint: j.embedEndpoint, Model: j.cfg.EmbeddingModel, Dimensions: j.cfg.Dimensions, Texts: texts, Sample: s.Index,
	})
	if err != nil {
		return nil, err
	}
	if len(resp.Vectors) != len(texts) {
		return nil, eval.NewStepError(eval.StatusJudgeError, "the embedding endpoint returned %d vectors for %d texts", len(resp.Vectors), len(texts))
	}
	// Checked here as well as before caching: with --no-cache nothing else
	// stands between a NaN from the endpoint and the score.
	if err := eval.CheckVectors(resp.Vectors, j.cfg.Dimensions); err != nil {
		return nil, err
	}
	return resp.Vectors, nil
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "..."
}

// With returns a copy of the judge that renders with another prompt set and
// sends through another client (nil keeps the current one): a prompt
// edit swaps the set for the next re-run; a cost estimate swaps the client.
func (j *Judge) With(set *prompts.Set, client eval.ChatClient) *Judge {
	c := *j
	if set != nil {
		c.prompts = set
	}
	if client != nil {
		c.client = client
	}
	return &c
}

// Prompts returns the prompt set the judge renders with.
func (j *Judge) Prompts() *prompts.Set { return j.prompts }
