// Package traces reads exported spans (OTLP/JSON, Phoenix, Langfuse) as a
// dataset, a sample per traced RAG request, for eval/dataset, which loads,
// scans and streams them as any dataset.
package traces

import (
	"bufio"
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// Three exports are read, told apart by their keys: OTLP/JSON
// (ExportTraceServiceRequest objects, one per line as a collector's file
// exporter writes them), OpenInference spans as Phoenix exports them (flat
// or nested attributes, in JSON Lines, a JSON array or Parquet) and Langfuse
// traces with their observations. Every span becomes a tspan with its
// attributes under their OpenInference names.
//
// A request is an outermost LLM span: its question and answer are the input
// and output of the highest span above it holding no other request, else of
// the LLM span; its chunks are the documents of its retriever spans in rank
// order. A retriever belongs to the first request to start after it (else
// the last before) among those under its nearest ancestor holding any (else
// all the trace's). A trace with a retriever and no LLM span is a bad
// record; one with neither is passed over. A trace's spans may be anywhere
// in the file, so the file is held whole, as spans reduced to what a
// request reads.

// maxTraceFileBytes caps a trace file that is not JSON Lines (one JSON
// object or array), which is read whole to be parsed.
const maxTraceFileBytes = 256 << 20

// tspan is one span of a trace, in any of the formats.
type tspan struct {
	trace, id, parent string
	name, kind        string
	start             int64 // unix nanoseconds; 0 when unknown
	order             int   // position in the file
	line              int   // the record it came from
	attrs             map[string]any
}

// traceReader gathers the spans of a trace file.
type traceReader struct {
	c      *read.Collector
	format string
	spans  []*tspan
	// traces in the order their first span came, with their spans.
	order  []string
	traces map[string][]*tspan
	// attr is the attribute --map names for a field, "" for the default;
	// its span selectors are read from c.TraceMap.
	attr [read.NFields]string
	// seen[f] is set when an attribute --map names for f was found.
	seen [read.NFields]bool
	// names are the attribute names met, kept or not, for messages.
	names map[string]bool
	// live: the spans are one line of a watched log, not a whole file;
	// errs name its traces left out for not being whole in it.
	live bool
	errs []error
}

func newTraceReader(c *read.Collector, format string) *traceReader {
	t := &traceReader{c: c, format: format, traces: map[string][]*tspan{}, names: map[string]bool{}}
	for k, v := range c.TraceMap {
		if f := slices.Index(read.FieldNames[:], k); f >= 0 {
			t.attr[f] = v
		}
	}
	return t
}

// add takes span s of record line, or refuses it (Bad's error) when it
// cannot be placed in its trace: it lacks traceKey or idKey.
func (t *traceReader) add(line int, s *tspan, path, traceKey, idKey string) error {
	if s.trace == "" || s.id == "" {
		missing := idKey
		if s.trace == "" {
			missing = traceKey
		}
		return t.c.Bad(line, "", fmt.Sprintf("%s has no %s — a span needs its trace id and span id to be placed in its request; re-export the spans with their ids",
			spanWhere(s.name, s.id, path), missing))
	}
	s.order = len(t.spans)
	t.spans = append(t.spans, s)
	if _, ok := t.traces[s.trace]; !ok {
		t.order = append(t.order, s.trace)
	}
	t.traces[s.trace] = append(t.traces[s.trace], s)
	return nil
}

// Read reads a file of a trace format, positioned past any BOM.
func Read(c *read.Collector, br *bufio.Reader, format string) error {
	t := newTraceReader(c, format)
	record := map[string]func(int, map[string]any) error{
		read.FormatOTLP: t.otlpRecord, read.FormatPhoenix: t.phoenixRecord, read.FormatLangfuse: t.langfuseRecord,
	}[format]
	if err := t.records(br, record); err != nil {
		return err
	}
	return t.samples()
}

// ReadParquet reads the spans of a Parquet file written from Phoenix's
// spans dataframe (df.to_parquet): a row per span, its columns named as
// the dataframe's, a document list as a list of structs.
func ReadParquet(c *read.Collector, f *parquet.File) error {
	t := newTraceReader(c, read.FormatPhoenix)
	schema := f.Schema()
	err := c.EachParquetRow(f, func(row int, pr parquet.Row) error {
		m := map[string]any{}
		if err := schema.Reconstruct(&m, pr); err != nil {
			return c.ParquetDamaged(fmt.Errorf("row %d: %w", row, err))
		}
		return t.phoenixRecord(row, m)
	})
	if err != nil {
		return err
	}
	return t.samples()
}

// ReadLine reads the requests of one line of a watched log, where a trace
// must be whole: errs name the traces left out for a span whose parent is
// not in the line, err is a failure of the whole line.
func ReadLine(c *read.Collector, line int, obj map[string]any) ([]error, error) {
	t := newTraceReader(c, read.FormatOTLP)
	t.live = true
	if err := t.otlpRecord(line, obj); err != nil {
		return nil, err
	}
	err := t.samples()
	return t.errs, err
}

// spanWhere names a span in messages.
func spanWhere(name, id, path string) string {
	s := "span"
	if name != "" {
		s += fmt.Sprintf(" %q", name)
	}
	if id != "" {
		s += " " + id
	}
	if path != "" {
		s += " (" + path + ")"
	}
	return s
}

// ---- requests

// is says whether s is a span the selector (read.MapLLM or
// read.MapRetriever) picks: by --map's span name or kind, else by kind.
func (t *traceReader) is(s *tspan, selector string) bool {
	if sel := t.c.TraceMap[selector]; sel != "" {
		return strings.EqualFold(s.name, sel) || strings.EqualFold(s.kind, sel)
	}
	return s.kind == strings.ToUpper(selector)
}

// samples builds the requests of every trace, in the order the traces
// first appear, a trace's requests in the order they started.
func (t *traceReader) samples() error {
	if len(t.spans) == 0 {
		if t.c.SkippedCount > 0 || t.live {
			return nil // finish says what was skipped
		}
		return &read.Error{File: t.c.Name, Msg: "no spans — the file holds no spans to build samples from"}
	}
	var reqs []*request
	for _, trace := range t.order {
		rs, err := t.trace(t.traces[trace])
		if err != nil {
			return err
		}
		reqs = append(reqs, rs...)
	}
	// In file order, as the other formats give their records: by the line
	// of the LLM span, then by when it started.
	slices.SortStableFunc(reqs, func(a, b *request) int {
		return cmp.Or(cmp.Compare(a.llm.line, b.llm.line), byStart(a.llm, b.llm))
	})
	for _, r := range reqs {
		if err := t.sample(r); err != nil {
			return err
		}
	}
	if t.live {
		return nil // a line of a log need not hold a request, nor a --map attribute
	}
	for f := range read.NFields {
		if t.attr[f] != "" && !t.seen[f] {
			return &read.Error{File: t.c.Name, Field: read.FieldNames[f], Msg: fmt.Sprintf("no span has the attribute %q named by --map %s=%s (attributes seen: %s) — fix --map",
				t.attr[f], read.FieldNames[f], t.attr[f], read.List(slices.Collect(maps.Keys(t.names))))}
		}
	}
	if len(reqs) == 0 && t.c.SkippedCount == 0 {
		kinds, names := map[string]bool{}, map[string]bool{}
		for _, s := range t.spans {
			kinds[s.kind], names[s.name] = true, true
		}
		delete(kinds, "")
		delete(names, "")
		return &read.Error{File: t.c.Name, Msg: fmt.Sprintf("no LLM span in its %d traces (span kinds: %s; names: %s) — a sample is built around each request's LLM span; pass --map llm=<span name or kind> to say which spans generate the answer",
			len(t.order), read.List(slices.Collect(maps.Keys(kinds))), read.List(slices.Collect(maps.Keys(names))))}
	}
	return nil
}

// maxNames caps the attribute names kept for messages.
const maxNames = 1000

// readAttrs are the attributes the request builder reads, itself or by
// index under them.
var readAttrs = []string{"openinference.span.kind", "input.value", "output.value", "metadata", "reference", "llm.input_messages", "llm.output_messages", "retrieval.documents"}

// put sets attribute key of span s when a request may read it (by default
// or by --map): the file is held whole, and other attributes (embeddings,
// say) outweigh the rest.
func (t *traceReader) put(s *tspan, key string, v any) {
	if len(t.names) < maxNames {
		t.names[key] = true
	}
	under := func(a string) bool {
		rest, ok := strings.CutPrefix(key, a)
		return a != "" && ok && (rest == "" || rest[0] == '.')
	}
	if slices.ContainsFunc(readAttrs, under) || slices.ContainsFunc(t.attr[:], under) {
		s.attrs[key] = v
	}
}

// request is one RAG request of a trace; several says its trace holds
// others.
type request struct {
	llm, top   *tspan
	retrievers []*tspan
	several    bool
}

// trace finds the requests of one trace.
func (t *traceReader) trace(spans []*tspan) ([]*request, error) {
	byID := make(map[string]*tspan, len(spans))
	for _, s := range spans {
		byID[s.id] = s
	}
	for _, s := range spans {
		if t.live && s.parent != "" && byID[s.parent] == nil {
			t.errs = append(t.errs, &read.Error{File: t.c.Name, Line: s.line, Unit: "line", Msg: fmt.Sprintf(
				"trace %s: the parent %s of %s is not in this line — a watched trace file needs each trace whole in one line: put the collector's groupbytrace processor before its file exporter; this trace is left out",
				s.trace, s.parent, spanWhere(s.name, s.id, ""))})
			return nil, nil
		}
	}
	// ancestors guards against a parent cycle in a damaged export.
	ancestors := func(s *tspan) []*tspan {
		var out []*tspan
		seen := map[*tspan]bool{s: true}
		for p := byID[s.parent]; p != nil && !seen[p]; p = byID[p.parent] {
			seen[p] = true
			out = append(out, p)
		}
		return out
	}
	isLLM := func(s *tspan) bool { return t.is(s, read.MapLLM) }
	var llms, retrievers []*tspan
	for _, s := range spans {
		if isLLM(s) && !slices.ContainsFunc(ancestors(s), isLLM) {
			llms = append(llms, s)
		}
		if t.is(s, read.MapRetriever) {
			retrievers = append(retrievers, s)
		}
	}
	if len(llms) == 0 {
		if len(retrievers) > 0 {
			r := retrievers[0]
			return nil, t.c.Bad(r.line, "answer", fmt.Sprintf("trace %s has a retriever span (%s) but no LLM span — its answer was not traced (the generation failed, or its span has another kind: pass --map llm=<span name>)",
				r.trace, spanWhere(r.name, r.id, "")))
		}
		return nil, nil
	}
	slices.SortStableFunc(llms, byStart)
	// under[s] are the requests in the subtree of span s.
	under := map[*tspan][]*tspan{}
	for _, l := range llms {
		for _, a := range append([]*tspan{l}, ancestors(l)...) {
			under[a] = append(under[a], l)
		}
	}
	reqs := make(map[*tspan]*request, len(llms))
	out := make([]*request, len(llms))
	for i, l := range llms {
		top := l
		for _, a := range ancestors(l) {
			if len(under[a]) != 1 {
				break
			}
			top = a
		}
		out[i] = &request{llm: l, top: top, several: len(llms) > 1}
		reqs[l] = out[i]
	}
	slices.SortStableFunc(retrievers, byStart)
	for _, r := range retrievers {
		// Spans with no common parent (an application that opens no span
		// of its own around a request) are matched by time alone.
		cands := llms
		for _, a := range append([]*tspan{r}, ancestors(r)...) {
			if len(under[a]) > 0 {
				cands = under[a]
				break
			}
		}
		i := slices.IndexFunc(cands, func(l *tspan) bool { return byStart(l, r) >= 0 })
		if i < 0 {
			i = len(cands) - 1
		}
		reqs[cands[i]].retrievers = append(reqs[cands[i]].retrievers, r)
	}
	return out, nil
}

// byStart orders spans by start time, then by their place in the file.
func byStart(a, b *tspan) int {
	if a.start != 0 && b.start != 0 && a.start != b.start {
		return cmp.Compare(a.start, b.start)
	}
	return cmp.Compare(a.order, b.order)
}

// sample makes the sample of one request.
func (t *traceReader) sample(r *request) error {
	l := r.llm
	s := eval.Sample{Line: l.line, ID: l.trace}
	if r.several {
		s.ID = l.trace + "/" + l.id
	}
	where := fmt.Sprintf("trace %s, LLM %s", l.trace, spanWhere(l.name, l.id, ""))
	path := []*tspan{r.top}
	if r.top != l {
		path = append(path, l)
	}
	var ok bool
	if s.Question, ok = t.field(read.FQuestion, path, inputText); !ok || strings.TrimSpace(s.Question) == "" {
		return t.c.Bad(l.line, "question", fmt.Sprintf("%s: no input (%s) on the request's spans — the question is the input of its root chain or of its LLM span; pass --map question=<attribute> if it is kept elsewhere", where, cmp.Or(t.attr[read.FQuestion], "input.value")))
	}
	if s.Answer, ok = t.field(read.FAnswer, path, outputText); !ok {
		return t.c.Bad(l.line, "answer", fmt.Sprintf("%s: no output (%s) on the request's spans — the LLM call did not finish or was traced without its output; pass --map answer=<attribute> if it is kept elsewhere", where, cmp.Or(t.attr[read.FAnswer], "output.value")))
	}
	for _, rs := range r.retrievers {
		docs, err := t.documents(rs)
		if err != nil {
			return t.c.Bad(rs.line, "contexts", fmt.Sprintf("trace %s, retriever %s: %v", rs.trace, spanWhere(rs.name, rs.id, ""), err))
		}
		s.Contexts = append(s.Contexts, docs...)
	}
	ref, _ := t.field(read.FReference, append(path, r.retrievers...), func(sp *tspan) (string, bool) {
		return t.lookup(sp, read.FReference, "reference", "metadata.reference")
	})
	s.Reference = strings.TrimSpace(ref)
	if t.attr[read.FID] != "" {
		for _, sp := range path {
			if v, ok := t.lookup(sp, read.FID); ok && v != "" {
				s.ID = v
				break
			}
		}
	}
	// A request's text comes from several spans, perhaps several lines:
	// held to the record limit as a record is, for the judges' memory.
	var o read.Oversized
	texts := [read.NFields]string{read.FQuestion: s.Question, read.FAnswer: s.Answer, read.FContexts: strings.Join(s.Contexts, ""), read.FReference: s.Reference, read.FID: s.ID}
	for f, v := range texts {
		o.Tally(f, read.FieldNames[f], int64(len(v)))
	}
	if o.Size > t.c.Limit {
		return t.c.Bad(l.line, o.Part, fmt.Sprintf("%s: the request's text is %s, over the limit of %s (--max-record-bytes), most of it in its %s (%s) — raise --max-record-bytes if the request is meant to be this large",
			where, read.FmtSize(o.Size), read.FmtSize(t.c.Limit), o.Part, read.FmtSize(o.PartSize)))
	}
	return t.c.Add(s, "")
}

// lookup finds field f on span s under the attribute --map names, else the
// default names (looking into the metadata JSON text too), as text.
func (t *traceReader) lookup(s *tspan, f int, defaults ...string) (string, bool) {
	names := defaults
	if t.attr[f] != "" {
		names = []string{t.attr[f]}
	}
	for _, n := range names {
		if v := s.attrs[n]; v != nil {
			t.seen[f] = true
			return text(v), true
		}
		if k, ok := strings.CutPrefix(n, "metadata."); ok {
			md, _ := s.attrs["metadata"].(string)
			if m, err := read.DecodeObject([]byte(md)); err == nil && m[k] != nil {
				return text(m[k]), true
			}
		}
	}
	return "", false
}

// field reads field f from the first of spans that has it: under the
// attribute --map names, else as pick finds it.
func (t *traceReader) field(f int, spans []*tspan, pick func(*tspan) (string, bool)) (string, bool) {
	if t.attr[f] != "" {
		pick = func(s *tspan) (string, bool) { return t.lookup(s, f) }
	}
	for _, sp := range spans {
		if v, ok := pick(sp); ok {
			return v, true
		}
	}
	return "", false
}

// inputText is a span's question: the last user message an LLM span was
// sent, else its input.value (the question inside a JSON input).
func inputText(s *tspan) (string, bool) {
	for _, m := range slices.Backward(messages(s.attrs, "llm.input_messages")) {
		if (strings.EqualFold(m.role, "user") || strings.EqualFold(m.role, "human")) && m.content != "" {
			return m.content, true
		}
	}
	if v := s.attrs["input.value"]; v != nil {
		return pickText(v, "user", "question", "query", "input", "user_input", "message", "content", "text"), true
	}
	return "", false
}

// outputText is a span's answer: an LLM span's first output message (its
// output.value is often the whole API response), else its output.value.
func outputText(s *tspan) (string, bool) {
	for _, m := range messages(s.attrs, "llm.output_messages") {
		if m.content != "" {
			return m.content, true
		}
	}
	if v := s.attrs["output.value"]; v != nil {
		return pickText(v, "assistant", "answer", "output", "response", "result", "content", "text", "message"), true
	}
	return "", false
}

type message struct{ role, content string }

// messages reads OpenInference's indexed messages under prefix
// (prefix.N.message.role, prefix.N.message.content), or a list of them.
func messages(attrs map[string]any, prefix string) []message {
	byN := map[int]message{}
	indexed(attrs, prefix, func(n int, field string, v any) {
		m := byN[n]
		switch {
		case field == "message.role":
			m.role = text(v)
		case field == "message.content":
			m.content = text(v)
		case strings.HasPrefix(field, "message.contents.") && strings.HasSuffix(field, ".message_content.text") && m.content == "":
			// A message in parts (OpenInference's message.contents.M):
			// its first text part.
			m.content = text(v)
		}
		byN[n] = m
	})
	l, _ := attrs[prefix].([]any)
	for i, e := range l {
		flat := flatten("", e, map[string]any{})
		byN[i] = message{role: text(flat["message.role"]), content: text(flat["message.content"])}
	}
	out := make([]message, 0, len(byN))
	for _, n := range slices.Sorted(maps.Keys(byN)) {
		out = append(out, byN[n])
	}
	return out
}

// indexed calls fn with each attribute numbered under prefix
// (prefix.N.field, or prefix.N), by its number and the rest of its name.
func indexed(attrs map[string]any, prefix string, fn func(n int, field string, v any)) {
	for k, v := range attrs {
		rest, ok := strings.CutPrefix(k, prefix+".")
		if !ok {
			continue
		}
		ns, field, _ := strings.Cut(rest, ".")
		if n, err := strconv.Atoi(ns); err == nil {
			fn(n, field, v)
		}
	}
}

// pickText is the text of an input or output value: a string (looked into
// when it is JSON), an object's first of keys, or the content of the last
// chat message with role (else the last).
func pickText(v any, role string, keys ...string) string {
	switch x := v.(type) {
	case string:
		st := strings.TrimSpace(x)
		if strings.HasPrefix(st, "{") || strings.HasPrefix(st, "[") {
			if parsed, err := read.DecodeJSON([]byte(st)); err == nil {
				if out := pickText(parsed, role, keys...); out != "" && out != st {
					return out
				}
			}
		}
	case map[string]any:
		for _, k := range keys {
			if sub := x[k]; sub != nil {
				return pickText(sub, role, keys...)
			}
		}
		if msgs, ok := x["messages"].([]any); ok {
			return pickText(msgs, role, keys...)
		}
		if choices, ok := x["choices"].([]any); ok && len(choices) > 0 {
			return pickText(choices[0], role, keys...) // a chat completion response
		}
	case []any:
		var last any
		for _, e := range x {
			if m, _ := e.(map[string]any); strings.EqualFold(text(m["role"]), role) {
				last = m["content"]
			}
		}
		if last == nil && len(x) > 0 {
			m, _ := x[len(x)-1].(map[string]any)
			last = m["content"]
		}
		if last != nil {
			return pickText(last, role, keys...)
		}
	}
	return text(v)
}

// documents are a retriever span's chunks in rank order: the indexed
// prefix.N.document.content attributes, or a list under prefix.
func (t *traceReader) documents(s *tspan) ([]string, error) {
	prefix := cmp.Or(t.attr[read.FContexts], "retrieval.documents")
	type doc struct {
		n    int
		text string
	}
	var docs []doc
	indexed(s.attrs, prefix, func(n int, field string, v any) {
		if field == "document.content" || field == "" {
			docs = append(docs, doc{n, text(v)})
		}
	})
	list := s.attrs[prefix]
	if str, ok := list.(string); ok {
		list, _ = read.DecodeJSON([]byte(str)) // a list kept as a JSON text
	}
	l, _ := list.([]any)
	for i, e := range l {
		docs = append(docs, doc{i, documentText(e)})
	}
	if docs != nil {
		t.seen[read.FContexts] = true
	}
	slices.SortStableFunc(docs, func(a, b doc) int { return cmp.Compare(a.n, b.n) })
	out := make([]string, 0, len(docs))
	for i, d := range docs {
		if i > 0 && d.n == docs[i-1].n {
			return nil, fmt.Errorf("document %d is given twice — a retriever's documents are numbered by rank, once each", d.n)
		}
		if strings.TrimSpace(d.text) != "" {
			out = append(out, d.text)
		}
	}
	return out, nil
}

// documentText is one retrieved document's text.
func documentText(e any) string {
	flat := flatten("", e, map[string]any{})
	for _, k := range []string{"document.content", "content", "page_content", "pageContent", "text"} {
		if v, ok := flat[k]; ok {
			return text(v)
		}
	}
	return text(e)
}
