// Package fakejudge is an in-process OpenAI-compatible server for tests and
// benchmarks: it answers chat completions and embeddings on loopback, counts
// requests per task, and lets a test script replies, failures and delays.
package fakejudge

import (
	"cmp"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/cost"
)

// Request is a chat request as the server saw it.
type Request struct {
	Task        string         `json:"-"` // response_format.json_schema.name; "" for json_object and text formats
	Model       string         `json:"model"`
	Messages    []Message      `json:"messages"`
	Temperature *float64       `json:"temperature"` // nil when the field was absent from the body
	N           int            `json:"n"`
	Seed        *int           `json:"seed"`
	MaxTokens   int            `json:"-"` // max_tokens or max_completion_tokens; 0 when absent
	Format      string         `json:"-"` // response_format.type
	Path        string         `json:"-"` // URL path (Azure puts the deployment there)
	Header      http.Header    `json:"-"`
	Raw         map[string]any `json:"-"`
}

// Message is a chat message.
type Message = eval.Message

// Prompt is the last user message.
func (r *Request) Prompt() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Reply is what the server answers to a chat request.
type Reply struct {
	Status      int               // HTTP status; 0 = 200
	Header      map[string]string // extra response headers (Retry-After)
	ContentType string            // default application/json
	Body        string            // raw body, overrides Choices and FinishReason
	// Stream, when set, is copied out as the body (overriding Body) until
	// it ends or the client goes away: a generated body of any size need
	// never be held in memory. Length, when positive, is announced as
	// the Content-Length.
	Stream       io.Reader
	Length       int64
	Choices      []string // message contents; FinishReason applies to all
	FinishReason string   // default "stop"
	// Reasoning, when set, is each choice's reasoning, sent in the
	// message field ReasoningField (reasoning_content or reasoning) and
	// counted in the completion tokens, as reasoning_tokens too.
	Reasoning      []string
	ReasoningField string
	Hang           bool // never answer (until the client gives up)
}

// Server is the fake endpoint.
type Server struct {
	*httptest.Server
	// Chat answers a chat request; it is called concurrently.
	Chat func(r *Request) Reply
	// Embed returns the vector of a text; default: a deterministic hash
	// vector (Vector).
	Embed func(text string) []float32
	// Delay is added before every answer (benchmarks). Change Delay, Embed,
	// Base64 and EmbedFault with Set once the server may be serving.
	Delay time.Duration
	// Base64 makes embeddings replies base64-encoded whatever was asked.
	Base64 bool
	// EmbedFault, when set and returning true, answers an embeddings
	// request with its Reply instead of vectors (status, error pages,
	// streams); Choices and FinishReason are ignored.
	EmbedFault func(texts []string) (Reply, bool)

	conns  atomic.Int64
	opened atomic.Int64

	mu       sync.Mutex
	counts   map[string]int
	requests []*Request
	embeds   [][]string
	hang     chan struct{} // closed by Close: hung requests return
	unhang   func()
}

// New starts a fake server; Close it when done.
func New(chat func(r *Request) Reply) *Server {
	s := &Server{Chat: chat, counts: map[string]int{}, hang: make(chan struct{})}
	s.unhang = sync.OnceFunc(func() { close(s.hang) })
	s.Server = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	s.Server.Config.ConnState = func(_ net.Conn, st http.ConnState) {
		switch st {
		case http.StateNew:
			s.conns.Add(1)
			s.opened.Add(1)
		case http.StateClosed, http.StateHijacked:
			s.conns.Add(-1)
		}
	}
	s.Server.Start()
	return s
}

// Connections is the number of open client connections. A connection is
// closed only after its handlers return, so once a killed client's
// connections are gone its requests are all counted.
func (s *Server) Connections() int { return int(s.conns.Load()) }

// Opened is the number of client connections accepted since the start:
// each would be a TCP and TLS handshake against a real endpoint.
func (s *Server) Opened() int { return int(s.opened.Load()) }

// Close releases hung requests and stops the server.
func (s *Server) Close() {
	s.unhang()
	s.Server.CloseClientConnections()
	s.Server.Close()
}

// URL is the base URL to give the client (with /v1).
func (s *Server) BaseURL() string { return s.Server.URL + "/v1" }

// Count returns the number of requests seen for a task ("embeddings" for
// embedding requests, "" for all).
func (s *Server) Count(task string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if task == "" {
		return len(s.requests) + len(s.embeds) // every request is kept
	}
	return s.counts[task]
}

// Requests returns the chat requests seen so far.
func (s *Server) Requests() []*Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Request(nil), s.requests...)
}

// EmbedBatches returns the texts of each embeddings request.
func (s *Server) EmbedBatches() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.embeds...)
}

// Set changes the server's settings (Delay, Embed, Base64, EmbedFault)
// safely while it serves: requests from another process give the race
// detector no happens-before edge, so plain field writes would be reported
// as races.
func (s *Server) Set(f func(*Server)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(s)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	var raw map[string]any
	if err := json.NewDecoder(r.Body).Decode(&raw); err != nil {
		http.Error(w, `{"error":{"message":"bad json"}}`, 400)
		return
	}
	switch {
	case strings.HasSuffix(r.URL.Path, "/embeddings"):
		s.serveEmbeddings(w, r, raw)
	case strings.HasSuffix(r.URL.Path, "/chat/completions"):
		s.serveChat(w, r, raw)
	default:
		http.Error(w, `{"error":{"message":"not found"}}`, 404)
	}
}

// pause is the server's Delay. It comes after the request is recorded, so
// that Requests lists requests in the order they arrived: a test that asks
// who paid first for a call (a process killed with the request on the wire,
// then its survivor) must not see the order in which sleeps happened to end
// on a loaded machine.
func (s *Server) pause() {
	s.mu.Lock()
	delay := s.Delay
	s.mu.Unlock()
	if delay > 0 {
		time.Sleep(delay)
	}
}

func (s *Server) serveChat(w http.ResponseWriter, hr *http.Request, raw map[string]any) {
	b, _ := json.Marshal(raw)
	req := &Request{Path: hr.URL.RequestURI(), Header: hr.Header.Clone(), Raw: raw}
	_ = json.Unmarshal(b, req)
	rf, _ := raw["response_format"].(map[string]any)
	req.Format, _ = rf["type"].(string)
	schema, _ := rf["json_schema"].(map[string]any)
	req.Task, _ = schema["name"].(string)
	for _, k := range []string{"max_tokens", "max_completion_tokens"} {
		if v, ok := raw[k].(float64); ok && v > 0 {
			req.MaxTokens = int(v)
		}
	}
	s.mu.Lock()
	s.counts[req.Task]++
	s.requests = append(s.requests, req)
	s.mu.Unlock()
	s.pause()

	rep := s.Chat(req)
	if s.writeRaw(w, hr, rep) {
		return
	}
	fr := cmp.Or(rep.FinishReason, "stop")
	if raw["stream"] == true {
		s.writeStream(w, req, rep, fr)
		return
	}
	choices := make([]map[string]any, len(rep.Choices))
	for i, c := range rep.Choices {
		msg := map[string]any{"role": "assistant", "content": c}
		if i < len(rep.Reasoning) && rep.ReasoningField != "" {
			msg[rep.ReasoningField] = rep.Reasoning[i]
		}
		choices[i] = map[string]any{"index": i, "finish_reason": fr, "message": msg}
	}
	prompt, completion := Usage(req.Model, req.Messages, rep.Choices)
	_, reasoning := Usage(req.Model, nil, rep.Reasoning)
	usage := map[string]any{"prompt_tokens": prompt, "completion_tokens": completion + reasoning, "total_tokens": prompt + completion + reasoning}
	if reasoning > 0 {
		usage["completion_tokens_details"] = map[string]any{"reasoning_tokens": reasoning}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": "chatcmpl-fake", "object": "chat.completion", "model": req.Model, "choices": choices, "usage": usage,
	})
}

// writeStream answers a streaming request as the servers do: an event per
// delta (the reasoning, then the answer in two pieces, the last with the
// finish reason), the usage in a last chunk when stream_options asks for
// it, then [DONE].
func (s *Server) writeStream(w http.ResponseWriter, req *Request, rep Reply, fr string) {
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	delta := func(i int, d map[string]any, finish any) {
		event(map[string]any{"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": req.Model,
			"choices": []any{map[string]any{"index": i, "delta": d, "finish_reason": finish}}})
	}
	for i, c := range rep.Choices {
		if i < len(rep.Reasoning) && rep.ReasoningField != "" {
			delta(i, map[string]any{"role": "assistant", rep.ReasoningField: rep.Reasoning[i]}, nil)
		}
		half := len([]rune(c)) / 2
		delta(i, map[string]any{"content": string([]rune(c)[:half])}, nil)
		delta(i, map[string]any{"content": string([]rune(c)[half:])}, fr)
	}
	if opts, _ := req.Raw["stream_options"].(map[string]any); opts["include_usage"] == true {
		prompt, completion := Usage(req.Model, req.Messages, rep.Choices)
		_, reasoning := Usage(req.Model, nil, rep.Reasoning)
		event(map[string]any{"choices": []any{}, "usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion + reasoning,
			"completion_tokens_details": map[string]any{"reasoning_tokens": reasoning}}})
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// Usage is what the server reports for a chat reply, the way OpenAI counts
// it: the prompt tokens of every message with their framing, and the
// tokens of the choices sent back, with the model's tokenizer (an estimate
// for models without one, see package cost).
func Usage(model string, msgs []Message, choices []string) (prompt, completion int) {
	c := cost.For(model)
	for _, ch := range choices {
		completion += c.Count(ch)
	}
	return c.Chat(msgs), completion
}

// writeRaw answers what a Reply scripts beyond choices: a hang, a status,
// a raw or streamed body. It reports false when the reply is a normal one
// still to be written (headers are then set).
func (s *Server) writeRaw(w http.ResponseWriter, hr *http.Request, rep Reply) bool {
	if rep.Hang {
		select {
		case <-hr.Context().Done():
		case <-s.hang:
		}
		return true
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", cmp.Or(rep.ContentType, "application/json"))
	if rep.Stream != nil {
		if rep.Length > 0 {
			w.Header().Set("Content-Length", strconv.FormatInt(rep.Length, 10))
		}
		if rep.Status != 0 {
			w.WriteHeader(rep.Status)
		}
		// Ends with an error when the client hangs up: that is the point.
		_, _ = io.Copy(w, rep.Stream)
		return true
	}
	if rep.Status != 0 && rep.Status != 200 {
		w.WriteHeader(rep.Status)
		rep.Body = cmp.Or(rep.Body, fmt.Sprintf(`{"error":{"message":"fake error %d","type":"fake"}}`, rep.Status))
	}
	if rep.Body != "" {
		_, _ = w.Write([]byte(rep.Body))
		return true
	}
	return false
}

// ClosedURL is the base URL of a loopback port that nobody listens on (it
// was listened on a moment ago, and closed): connecting to it is refused.
func ClosedURL() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		return "", err
	}
	return "http://" + addr + "/v1", nil
}

func (s *Server) serveEmbeddings(w http.ResponseWriter, hr *http.Request, raw map[string]any) {
	var texts []string
	switch in := raw["input"].(type) {
	case string:
		texts = []string{in}
	case []any:
		for _, t := range in {
			str, _ := t.(string)
			texts = append(texts, str)
		}
	}
	s.mu.Lock()
	s.counts["embeddings"]++
	s.embeds = append(s.embeds, texts)
	embed, b64, fault := s.Embed, s.Base64 || raw["encoding_format"] == "base64", s.EmbedFault
	s.mu.Unlock()
	s.pause()
	if fault != nil {
		if rep, ok := fault(texts); ok {
			s.writeRaw(w, hr, rep)
			return
		}
	}
	if embed == nil {
		embed = Vector
	}
	data := make([]map[string]any, len(texts))
	for i, t := range texts {
		v := embed(t)
		var e any = v
		if b64 {
			buf, _ := binary.Append(nil, binary.LittleEndian, v)
			e = base64.StdEncoding.EncodeToString(buf)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": e}
	}
	model, _ := raw["model"].(string)
	_, tokens := Usage(model, nil, texts)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": raw["model"],
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
}

// Vector is a deterministic 16-dimensional unit vector derived from a
// text's hash: equal texts give cosine 1, others something in between.
func Vector(text string) []float32 {
	sum := sha256.Sum256([]byte(text))
	v := make([]float32, 16)
	var n float64
	for i := range v {
		x := float64(sum[i]) + 1
		v[i] = float32(x)
		n += x * x
	}
	for i := range v {
		v[i] /= float32(math.Sqrt(n))
	}
	return v
}

// JSON marshals v for a scripted reply.
func JSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// input is the request's first user message from the end of its worked
// examples on: the part that holds this request's own input.
func (r *Request) input() string {
	var p string
	if i := slices.IndexFunc(r.Messages, func(m Message) bool { return m.Role == "user" }); i >= 0 {
		p = r.Messages[i].Content
	}
	if i := strings.LastIndex(p, "</example>"); i >= 0 {
		p = p[i:]
	}
	return p
}

// Chunks are the retrieved chunks of the request's input, in rank order,
// as its first user message shows them (the worked examples' chunks left
// out), with the prompt's escaping undone.
func (r *Request) Chunks() []string { return r.TaskItems("chunk") }

// Evidence is the "chunk" and "quote" of a contract-2 reply citing the
// start of the first chunk (null and "" without chunks), as JSON members.
func Evidence(r *Request) string {
	cs := r.Chunks()
	if len(cs) == 0 {
		return `"chunk": null, "quote": ""`
	}
	line, _, _ := strings.Cut(cs[0], "\n")
	q := []rune(line)
	return `"chunk": 1, "quote": ` + JSON(strings.TrimSpace(string(q[:min(len(q), 24)])))
}

// Generic answers every task with a valid reply of fixed shape: two
// statements, both supported and citing the first chunk; one question per
// choice (distinct per seed and choice); every chunk useful; two reference
// statements attributed. It serves benchmarks and end-to-end tests that
// count calls, not scores.
func Generic(r *Request) Reply {
	switch r.Task {
	case "faithfulness_statements":
		return one(`{"statements": ["first statement", "second statement"]}`)
	case "faithfulness_verdicts":
		ev := Evidence(r)
		return one(`{"statements": [{"statement": "first statement", ` + ev + `, "reason": "stated in the context", "verdict": 1}, {"statement": "second statement", ` + ev + `, "reason": "stated in the context", "verdict": 1}]}`)
	case "answer_relevancy_question":
		seed := 0
		if r.Seed != nil {
			seed = *r.Seed
		}
		return each(r, func(i int) any {
			return map[string]any{"question": fmt.Sprintf("generated question %d", seed*10+i), "noncommittal": 0}
		})
	case "context_precision_verdict", "context_utilization_verdict":
		return one(`{"reason": "useful", "verdict": 1}`)
	case "answer_correctness_classifications":
		return one(Classification(r))
	case "context_recall_classifications":
		ev := Evidence(r)
		return one(`{"classifications": [{"statement": "ref one", ` + ev + `, "reason": "in context", "attributed": 1}, {"statement": "ref two", ` + ev + `, "reason": "in context", "attributed": 1}]}`)
	case "context_entity_recall_entities":
		return one(JSON(map[string]any{"entities": Entities(r.TaskText("text"))}))
	case "entailment_verdicts":
		return one(Entailment(r))
	case "criterion_yes_no", "criterion_rubric", "criterion_checklist":
		return Criterion(r)
	case "conversation_standalone_question":
		return one(Standalone(r))
	case "conversation_history_verdicts":
		return one(HistoryVerdicts(r))
	}
	return Reply{Status: 400, Body: `{"error":{"message":"fakejudge: unknown task"}}`}
}

// one is a reply of one choice.
func one(content string) Reply { return Reply{Choices: []string{content}} }

// each is a reply of one choice per draw the request asks (n), f(i) the
// i-th as JSON.
func each(r *Request, f func(i int) any) Reply {
	choices := make([]string, max(r.N, 1))
	for i := range choices {
		choices[i] = JSON(f(i))
	}
	return Reply{Choices: choices}
}

// Criterion is the fake judge's reply to the criteria tasks, decided by
// the answer's length so that samples differ and a run has failures to
// show: a yes_no says yes to an answer of 20 characters or more (each
// choice of a request asking n); a rubric gives the top level to 40 or
// more, the lowest to under 20, the middle one otherwise; a checklist
// passes its odd-numbered items.
func Criterion(r *Request) Reply {
	answer := []rune(r.TaskText("answer"))
	quote := string(answer[:min(len(answer), 12)])
	switch r.Task {
	case "criterion_yes_no":
		v, reason := 0, "the answer is too short to meet it"
		if len(answer) >= 20 {
			v, reason = 1, "the answer says enough to meet it"
		}
		return each(r, func(int) any { return map[string]any{"quote": quote, "reason": reason, "verdict": v} })
	case "criterion_rubric":
		var levels []int
		for _, m := range levelRE.FindAllStringSubmatch(r.input(), -1) {
			n, _ := strconv.Atoi(m[1])
			levels = append(levels, n)
		}
		if len(levels) == 0 {
			return Reply{Status: 400, Body: `{"error":{"message":"fakejudge: a rubric prompt without levels"}}`}
		}
		level := levels[len(levels)/2]
		switch {
		case len(answer) >= 40:
			level = levels[len(levels)-1]
		case len(answer) < 20:
			level = levels[0]
		}
		return one(JSON(map[string]any{"quote": quote, "reason": fmt.Sprintf("an answer of %d characters", len(answer)), "level": level}))
	}
	items := []map[string]any{}
	for i, it := range r.TaskItems("item") {
		items = append(items, map[string]any{"item": it, "quote": quote, "reason": "fake: every other item", "verdict": (i + 1) % 2})
	}
	return one(JSON(map[string]any{"items": items}))
}

var levelRE = regexp.MustCompile(`<level score="(\d+)">`)

// TaskText is the content of the request's input block <tag>…</tag>, the
// one after the worked examples, with the prompt's escaping undone ("" when
// there is none).
func (r *Request) TaskText(tag string) string {
	_, after, opened := strings.Cut(r.input(), "<"+tag+">")
	body, _, closed := strings.Cut(after, "</"+tag+">")
	if !opened || !closed {
		return ""
	}
	return unescape(body)
}

// unescape undoes the prompt's escaping of a block's text, trimmed.
func unescape(s string) string { return strings.TrimSpace(strings.ReplaceAll(s, "&lt;", "<")) }

// Entities is the fake judge's entity list of a text, deterministic and
// cheap: every distinct word that starts with a capital letter or a digit,
// trimmed of punctuation, in order. Texts that share such words share
// entities, so entity recall has something to find.
func Entities(text string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, w := range strings.Fields(text) {
		w = strings.TrimFunc(w, func(c rune) bool { return unicode.IsPunct(c) })
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

// Entailment is the fake judge's entailment_verdicts reply: one verdict per
// numbered statement of the request's input, in order; a statement is
// entailed when the premise contains it (case aside) or its number is odd.
// Deterministic, and mixed enough that factual correctness and noise
// sensitivity have TPs and FPs, relevant and irrelevant chunks to show.
func Entailment(r *Request) string {
	premise := strings.ToLower(r.TaskText("text"))
	out := []map[string]any{}
	for i, st := range r.TaskItems("statement") {
		v := map[string]any{"statement": st, "reason": "the text does not say so", "verdict": 0}
		if i%2 == 0 || strings.Contains(premise, strings.ToLower(st)) {
			v["verdict"], v["reason"] = 1, "the text says so"
		}
		out = append(out, v)
	}
	return JSON(map[string]any{"verdicts": out})
}

// Classification is the answer-correctness classes of the statements and
// facts the request lists, as the contract wants them (each statement in
// TP or FP once): the first statement TP, the others FP; the facts but the
// first FN.
func Classification(r *Request) string {
	item := func(s, reason string) map[string]any { return map[string]any{"statement": s, "reason": reason} }
	tp, fp, fn := []map[string]any{}, []map[string]any{}, []map[string]any{}
	for i, s := range r.TaskItems("statement") {
		if i == 0 {
			tp = append(tp, item(s, "in the reference"))
		} else {
			fp = append(fp, item(s, "not in the reference"))
		}
	}
	for i, f := range r.TaskItems("fact") {
		if i > 0 {
			fn = append(fn, item(f, "missing from the answer"))
		}
	}
	return JSON(map[string]any{"TP": tp, "FP": fp, "FN": fn})
}

// TaskItems are the contents of the request's numbered input blocks
// <tag n="1">…</tag>, the ones after the worked examples, in order and with
// the prompt's escaping undone.
func (r *Request) TaskItems(tag string) []string {
	var out []string
	for _, t := range r.TurnItems(tag) {
		out = append(out, t.Text)
	}
	return out
}
