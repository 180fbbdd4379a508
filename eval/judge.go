package eval

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
)

// Judge is what the metrics need: one method per judge task, implemented
// by the LLM judge and the offline lexical judge alike, so the drill-down
// looks the same whichever ran. Each method's error gives the metric's
// status through StatusOf.
type Judge interface {
	// Info describes the judge for banners and reports.
	Info() JudgeInfo
	// Statements splits the answer into standalone statements (faithfulness_statements).
	Statements(ctx context.Context, s *Sample) ([]string, error)
	// Verdicts judges each statement against the contexts
	// (faithfulness_verdicts); it returns exactly one verdict per statement.
	Verdicts(ctx context.Context, s *Sample, statements []string) ([]StatementVerdict, error)
	// Questions generates n questions the answer would answer
	// (answer_relevancy_question), without cosines.
	Questions(ctx context.Context, s *Sample, n int) ([]GeneratedQuestion, error)
	// ChunkVerdict judges whether the chunk at rank (1-based) was useful to
	// arrive at the reference (context_precision_verdict).
	ChunkVerdict(ctx context.Context, s *Sample, rank int) (ChunkVerdict, error)
	// UtilizationVerdict judges whether the chunk at rank (1-based) was
	// useful to arrive at the answer (context_utilization_verdict).
	UtilizationVerdict(ctx context.Context, s *Sample, rank int) (ChunkVerdict, error)
	// Classify splits the reference into statements and attributes each to
	// the contexts or not (context_recall_classifications).
	Classify(ctx context.Context, s *Sample) ([]Classification, error)
	// ReferenceStatements splits the reference into standalone statements:
	// the faithfulness_statements task with the reference as the text.
	ReferenceStatements(ctx context.Context, s *Sample) ([]string, error)
	// CorrectnessClassify sorts the answer's statements into TP and FP by
	// the reference and the reference's statements missing from the answer
	// into FN (answer_correctness_classifications).
	CorrectnessClassify(ctx context.Context, s *Sample, answer, reference []string) (CorrectnessClasses, error)
	// Entailment judges each statement against a premise text: verdict 1
	// when the premise entails it (entailment_verdicts). Factual
	// correctness uses it with the reference or the answer as the premise,
	// noise sensitivity with one chunk or the reference. It returns exactly
	// one verdict per statement, in order.
	Entailment(ctx context.Context, s *Sample, premise string, statements []string) ([]StatementVerdict, error)
	// Entities lists the named entities of a text (context_entity_recall_entities):
	// people, places, organisations, dates, numbers with their units, titles.
	Entities(ctx context.Context, s *Sample, text string) ([]string, error)
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, s *Sample, texts []string) ([][]float64, error)
}

// AnswerSimilarityJudge is implemented by judges that cannot generate
// questions (the offline judge): answer relevancy is then unsupported.
type AnswerSimilarityJudge interface {
	Judge
	// Noncommittal reports whether the answer evades the question, and the
	// phrase that showed it.
	Noncommittal(s *Sample) (bool, string)
}

// MetricSupporter is implemented by judges that cannot compute every
// metric honestly: Unsupported says why ("" when it can).
type MetricSupporter interface {
	Unsupported(m Metric) string
}

// JudgeInfo names the judge in banners, the TUI header and reports. The API
// key is never part of it.
type JudgeInfo struct {
	Kind           string `json:"kind"` // "llm" or "offline"
	Name           string `json:"name"` // "gpt-4o-mini" or "offline (lexical)"
	BaseURL        string `json:"base_url,omitempty"`
	Model          string `json:"model,omitempty"`
	EmbeddingModel string `json:"embedding_model,omitempty"`
}

// Message is one chat message of a judge request.
type Message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// ResponseFormat is the structured-output request of a chat call.
type ResponseFormat struct {
	Type   string          `json:"type"`             // json_schema, json_object or text
	Name   string          `json:"name,omitempty"`   // the task, for json_schema
	Schema json.RawMessage `json:"schema,omitempty"` // for json_schema
}

// ChatRequest is a canonical chat-completion request: its json-tagged
// fields decide the reply and are what the cache key hashes.
type ChatRequest struct {
	Endpoint       string         `json:"endpoint"` // host and path of the API, see EndpointOf
	Model          string         `json:"model"`
	Messages       []Message      `json:"messages"`
	Temperature    float32        `json:"temperature"`
	TopP           float32        `json:"top_p,omitempty"`
	Seed           *int           `json:"seed,omitempty"`
	N              int            `json:"n,omitempty"`
	MaxTokens      int            `json:"max_tokens,omitempty"`
	ResponseFormat ResponseFormat `json:"response_format"`
	// Draw distinguishes repeated draws of the same prompt (answer relevancy
	// without n): each draw is a different request, never one cached reply reused.
	Draw int `json:"draw,omitempty"`
	// Reasoning is the thinking switch sent to the server: "off" or "on";
	// "" sends none (the server's default).
	Reasoning string `json:"reasoning,omitempty"`

	Task   string `json:"-"` // faithfulness_statements, ...
	Lang   string `json:"-"` // the prompt's language, en or zh
	Sample int    `json:"-"` // sample index, for events and traces
	// Validate, when set, checks each returned choice; a reply that fails is
	// treated like a malformed reply: retried, and never cached.
	Validate func(content string) error `json:"-"`
}

// cacheFormatVersion is hashed into every key; bump it when the meaning of a
// cached value changes.
const cacheFormatVersion = 1

// Key is the content address of the request: a sha256 of its canonical JSON
// and the cache-format version. It never includes the API key.
func (r ChatRequest) Key() string {
	return contentKey(struct {
		V    int         `json:"v"`
		Kind string      `json:"kind"`
		Req  ChatRequest `json:"req"`
	}{cacheFormatVersion, "chat", r})
}

// contentKey is the sha256 of v's JSON.
func contentKey(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Usage is token usage reported by the endpoint.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// ReasoningTokens is the part of CompletionTokens the model spent
	// thinking, where the server reports it (completion_tokens_details).
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
}

// ChatResponse is the reply to a ChatRequest.
type ChatResponse struct {
	Choices       []string `json:"choices"` // message content per choice, reasoning removed
	FinishReasons []string `json:"finish_reasons"`
	// Reasoning is each choice's reasoning: the server's separate field
	// (reasoning_content, reasoning) or the <think> blocks taken out of
	// the content. Kept with the reply for the analyst, never parsed.
	Reasoning []string `json:"reasoning,omitempty"`
	Usage     Usage    `json:"usage"`
	LatencyMS int64    `json:"latency_ms"`
	Cached    bool     `json:"-"` // served from the cache
	Key       string   `json:"-"` // the request's cache key
}

// EmbedRequest asks for embeddings of several texts in one call.
type EmbedRequest struct {
	Endpoint   string   `json:"endpoint"`
	Model      string   `json:"model"`
	Dimensions int      `json:"dimensions,omitempty"`
	Texts      []string `json:"texts"`

	Sample int `json:"-"`
}

// EmbedKey is the content address of one text's embedding, so a text
// embedded by two metrics or two runs is paid for once.
func EmbedKey(endpoint, model string, dims int, text string) string {
	return contentKey(struct {
		V        int    `json:"v"`
		Kind     string `json:"kind"`
		Endpoint string `json:"endpoint"`
		Model    string `json:"model"`
		Dims     int    `json:"dims,omitempty"`
		Text     string `json:"text"`
	}{cacheFormatVersion, "embedding", endpoint, model, dims, text})
}

// EmbedResponse holds one vector per requested text.
type EmbedResponse struct {
	Vectors   [][]float64 `json:"vectors"`
	Usage     Usage       `json:"usage"`
	LatencyMS int64       `json:"latency_ms"`
	Cached    int         `json:"-"` // how many vectors came from the cache
}

// ChatClient is the transport under the LLM judge: the OpenAI-compatible
// client, wrapped by retries and by the cache.
type ChatClient interface {
	Chat(ctx context.Context, req ChatRequest) (ChatResponse, error)
	Embed(ctx context.Context, req EmbedRequest) (EmbedResponse, error)
}

// EndpointOf reduces a base URL to host and path, dropping scheme, query
// and credentials so a key smuggled into a URL never reaches a cache key.
func EndpointOf(baseURL string) string {
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return strings.TrimRight(baseURL, "/")
	}
	return u.Host + strings.TrimRight(u.Path, "/")
}
