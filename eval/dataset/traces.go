package dataset

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/ragscope/ragscope/eval"
)

// Traces as a dataset: a file of exported spans becomes one sample per
// traced RAG request. Three exports are read, told apart by their keys:
//
//   - OTLP/JSON (FormatOTLP), as an OpenTelemetry collector's file exporter
//     writes it: one ExportTraceServiceRequest per line
//     ({"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}), or one such
//     object in a file, attributes as key/AnyValue pairs;
//   - OpenInference spans as Phoenix exports them (FormatPhoenix): a record
//     per span with context.trace_id, context.span_id, parent_id, span_kind
//     and the attributes, flat (attributes.input.value, as
//     get_spans_dataframe's columns) or nested ({"attributes": {...}}), in
//     JSON Lines, a JSON array or Parquet;
//   - Langfuse traces with their observations (FormatLangfuse): the objects
//     GET /api/public/traces/{id} returns, one per line, in a JSON array or
//     under "data".
//
// Every span is turned into the same shape: its trace, id, parent, name,
// kind (OpenInference's openinference.span.kind; Langfuse's observation
// type, GENERATION being LLM), start time and attributes under their
// OpenInference names (input.value, output.value,
// retrieval.documents.N.document.content, …). A request is an LLM span (the
// outermost, when LLM spans nest): its question and answer are the input and
// output of the highest span above it that holds no other request (the root
// chain of a one-request trace), else of the LLM span itself; its chunks are
// the documents of the retriever spans assigned to it, in rank order (the N
// of retrieval.documents.N, not the order attributes come in). A retriever
// span belongs to the request it was retrieved for: going up from it, the
// first span holding requests gives the candidates (all the trace's
// requests when no span above it holds one), and of those the first to
// start after the retriever did (else the last before it) takes it. So
// two chains of retrieve-then-generate in one trace are two samples, nested
// or side by side. A request without a retriever span is a sample without
// contexts, whose context metrics are then missing_input like any sample
// without chunks. A trace with a retriever span and no LLM span is a bad
// record (its generation failed or was not traced); a trace with neither is
// not a RAG request and is passed over.
//
// The spans of a trace may be anywhere in the file (a collector writes them
// as batches end), so a trace file is held whole during each pass, as its
// spans reduced to these fields and the attributes a request reads.

// Trace formats.
const (
	FormatOTLP     = "otlp"
	FormatPhoenix  = "phoenix"
	FormatLangfuse = "langfuse"
)

// isTraceFormat says whether format reads spans.
func isTraceFormat(format string) bool {
	return format == FormatOTLP || format == FormatPhoenix || format == FormatLangfuse
}

// Span selectors: --map keys that name spans, not attributes, and apply to
// trace files only.
const (
	mapLLM       = "llm"
	mapRetriever = "retriever"
)

var traceSelectors = []string{mapLLM, mapRetriever}

func isTraceSelector(k string) bool { return slices.Contains(traceSelectors, k) }

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
	// llms are the requests (LLM spans) in this span's subtree, filled
	// in by the request builder.
	llms []*tspan
}

// traceReader gathers the spans of a trace file.
type traceReader struct {
	c      *collector
	format string
	spans  []*tspan
	// traces in the order their first span came, with their spans.
	order  []string
	traces map[string][]*tspan
	// sel holds the --map span selectors; attr the attribute --map names
	// for a field, "" for the default.
	sel  map[string]string
	attr [nFields]string
	// seen[f] is set when an attribute --map names for f was found.
	seen [nFields]bool
	// names are the attribute names met, kept or not, for messages.
	names map[string]bool
}

func newTraceReader(c *collector, format string, m map[string]string) *traceReader {
	t := &traceReader{c: c, format: format, traces: map[string][]*tspan{}, sel: map[string]string{}, names: map[string]bool{}}
	for k, v := range m {
		if isTraceSelector(k) {
			t.sel[k] = v
		} else if f := fieldIndex(k); f >= 0 {
			t.attr[f] = v
		}
	}
	return t
}

func (t *traceReader) add(s *tspan) {
	s.order = len(t.spans)
	t.spans = append(t.spans, s)
	if _, ok := t.traces[s.trace]; !ok {
		t.order = append(t.order, s.trace)
	}
	t.traces[s.trace] = append(t.traces[s.trace], s)
}

// readTraces reads a trace file of format into samples.
func readTraces(c *collector, br *bufio.Reader, format string, m map[string]string) error {
	t := newTraceReader(c, format, m)
	err := t.records(br, func(line int, unit string, obj map[string]any) error {
		c.unit = unit
		switch format {
		case FormatOTLP:
			return t.otlpRecord(line, obj)
		case FormatLangfuse:
			return t.langfuseRecord(line, obj)
		}
		return t.phoenixRecord(line, obj)
	})
	if err != nil {
		return err
	}
	return t.samples()
}

// records calls each with every record of the file: each line of JSON
// Lines, else each element of the array the file holds (also under
// "data"), else the one object it is.
func (t *traceReader) records(br *bufio.Reader, each func(line int, unit string, obj map[string]any) error) error {
	c := t.c
	head, _ := br.Peek(sniffWindow)
	if firstLineWhole(head) {
		r := &lines{br: br, limit: c.limit, sizer: func() sizer { return &recordSizer{} }}
		for {
			b, line, o, err := r.next()
			c.unit = unitLine
			switch {
			case err != nil:
				return fmt.Errorf("%s: %w", c.name, err)
			case o != nil:
				field, msg := c.tooBigField(*o)
				err = c.bad(line, field, msg)
			case b == nil:
				return nil
			default:
				if tb := bytes.TrimSpace(b); len(tb) > 0 {
					var obj map[string]any
					if perr := decodeObject(tb, &obj); perr != nil {
						err = c.bad(line, "", perr.Error())
					} else {
						err = each(line, unitLine, obj)
					}
				}
			}
			if err != nil {
				return err
			}
		}
	}
	data, err := io.ReadAll(io.LimitReader(br, maxTraceFileBytes+1))
	if err != nil {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	if len(data) > maxTraceFileBytes {
		return &Error{File: c.name, Msg: fmt.Sprintf("a trace file that is not JSON Lines is read whole, and this one is over %s — export one record per line (JSON Lines), which has no limit but --max-record-bytes per line", fmtSize(maxTraceFileBytes))}
	}
	var whole any
	if perr := decodeValue(data, &whole); perr != nil {
		e := &Error{File: c.name, Msg: perr.Error()}
		var se *json.SyntaxError
		if errors.As(json.Unmarshal(data, new(json.RawMessage)), &se) && se.Offset <= int64(len(data)) {
			e.Line, e.Unit = 1+bytes.Count(data[:se.Offset], []byte("\n")), unitLine
		}
		return e
	}
	if obj, ok := whole.(map[string]any); ok {
		if list, ok := obj["data"].([]any); ok && t.format != FormatOTLP {
			whole = list
		} else {
			return each(1, unitLine, obj)
		}
	}
	list, ok := whole.([]any)
	if !ok {
		return &Error{File: c.name, Msg: "is neither an object nor a list of objects — export the spans as JSON Lines"}
	}
	starts := elementLines(data)
	for i, el := range list {
		line := i + 1
		if i < len(starts) {
			line = starts[i]
		}
		obj, ok := el.(map[string]any)
		if !ok {
			if err := c.bad(line, "", fmt.Sprintf("element %d is not an object", i+1)); err != nil {
				return err
			}
			continue
		}
		if err := each(line, unitLine, obj); err != nil {
			return err
		}
	}
	return nil
}

// firstLineWhole reports whether the file is JSON Lines: its first line
// is an object, whole or broken (a damaged record is then named by its
// line), or longer than the window (a collector's batch may be MiBs on one
// line); a pretty-printed object opens with a line holding only "{".
func firstLineWhole(head []byte) bool {
	t := bytes.TrimLeft(head, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	line, _, found := bytes.Cut(t, []byte("\n"))
	line = bytes.TrimSpace(line)
	if !found || json.Valid(line) {
		return true
	}
	return string(line) != "{" && bytes.HasSuffix(line, []byte("}"))
}

// elementLines gives the line each element of the top-level array in data
// (or of its "data" list) starts on.
func elementLines(data []byte) []int {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil
	}
	if tok == json.Delim('{') {
		for {
			k, err := dec.Token()
			key, ok := k.(string)
			if err != nil || !ok {
				return nil
			}
			if key == "data" {
				if tok, err = dec.Token(); err != nil || tok != json.Delim('[') {
					return nil
				}
				break
			}
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil
			}
		}
	} else if tok != json.Delim('[') {
		return nil
	}
	var out []int
	for dec.More() {
		off := dec.InputOffset()
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n,", data[off]) >= 0 {
			off++
		}
		out = append(out, 1+bytes.Count(data[:off], []byte("\n")))
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return out
		}
	}
	return out
}

// sniffTraces tells a trace export by the keys of its first record (of a
// JSON Lines file, a JSON array, or the list under "data"); "" when it is
// not one.
func sniffTraces(head []byte) string {
	dec := json.NewDecoder(bytes.NewReader(head))
	tok, err := dec.Token()
	if err != nil {
		return ""
	}
	if tok == json.Delim('[') {
		if tok, err = dec.Token(); err != nil {
			return ""
		}
	}
	if tok != json.Delim('{') {
		return ""
	}
	keys := map[string]bool{}
	var ctx map[string]any
	for dec.More() {
		k, err := dec.Token()
		key, ok := k.(string)
		if err != nil || !ok {
			break
		}
		keys[key] = true
		if key == "data" && len(keys) == 1 {
			if tok, err := dec.Token(); err == nil && tok == json.Delim('[') {
				if tok, err := dec.Token(); err == nil && tok == json.Delim('{') {
					keys = map[string]bool{}
					continue
				}
			}
			break
		}
		if key == "context" {
			if dec.Decode(&ctx) != nil {
				break
			}
			continue
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			break // the record goes on past the window
		}
	}
	switch {
	case keys["resourceSpans"]:
		return FormatOTLP
	case keys["observations"]:
		return FormatLangfuse
	case keys["context.trace_id"], keys["context.span_id"],
		ctx != nil && (ctx["trace_id"] != nil || ctx["span_id"] != nil) && (keys["span_kind"] || keys["parent_id"]):
		return FormatPhoenix
	}
	return ""
}

// decodeObject decodes a JSON object, numbers kept as written.
func decodeObject(b []byte, obj *map[string]any) error {
	var v any
	if err := decodeValue(b, &v); err != nil {
		return err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("is %s, not an object — each record must be a JSON object", aKind(kindOf(b)))
	}
	*obj = m
	return nil
}

func decodeValue(b []byte, v *any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		if err == io.ErrUnexpectedEOF || err == io.EOF {
			return fmt.Errorf("invalid JSON: it ends in the middle of a value — the file was cut short (a partial copy, or a collector still writing it); export it again")
		}
		return fmt.Errorf("invalid JSON: %s — fix or re-export the file", jsonErrText(err))
	}
	if dec.More() {
		return fmt.Errorf("invalid JSON: more than one value where one was expected — export one object per line (JSON Lines)")
	}
	return nil
}

// flatten puts the values of nested objects under dotted keys; lists stay
// values.
func flatten(prefix string, v any, out map[string]any) {
	m, ok := v.(map[string]any)
	if !ok || (len(m) == 0 && prefix != "") {
		if prefix != "" {
			out[prefix] = v
		}
		return
	}
	for k, sub := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		flatten(key, sub, out)
	}
}

// text is a value as text: a string as it is, a number as written, null as
// "", anything else as JSON.
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case []byte:
		return string(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	b, _ := json.Marshal(v)
	return string(b)
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

// needIDs refuses a span that cannot be placed in its trace.
func (t *traceReader) needIDs(line int, s *tspan, path, traceKey, idKey string) (bool, error) {
	missing := ""
	switch {
	case s.trace == "":
		missing = traceKey
	case s.id == "":
		missing = idKey
	}
	if missing == "" {
		return true, nil
	}
	return false, t.c.bad(line, "", fmt.Sprintf("%s has no %s — a span needs its trace id and span id to be placed in its request; re-export the spans with their ids",
		spanWhere(s.name, s.id, path), missing))
}

// ---- OTLP/JSON

// otlpRecord reads one ExportTraceServiceRequest.
func (t *traceReader) otlpRecord(line int, obj map[string]any) error {
	rss, ok := obj["resourceSpans"].([]any)
	if !ok {
		return t.c.bad(line, "", fmt.Sprintf(`has no "resourceSpans" list (keys: %s) — an OTLP/JSON file holds ExportTraceServiceRequest objects, one per line as the collector's file exporter writes them`, list(keysOf(obj))))
	}
	for i, rs := range rss {
		rsm, _ := rs.(map[string]any)
		sss, _ := rsm["scopeSpans"].([]any)
		if sss == nil {
			sss, _ = rsm["instrumentationLibrarySpans"].([]any) // OTLP before 0.15
		}
		for j, ss := range sss {
			ssm, _ := ss.(map[string]any)
			spans, _ := ssm["spans"].([]any)
			for k, sp := range spans {
				path := fmt.Sprintf("resourceSpans[%d].scopeSpans[%d].spans[%d]", i, j, k)
				m, ok := sp.(map[string]any)
				if !ok {
					if err := t.c.bad(line, "", path+" is not an object"); err != nil {
						return err
					}
					continue
				}
				s := &tspan{line: line, trace: text(m["traceId"]), id: text(m["spanId"]), parent: text(m["parentSpanId"]), name: text(m["name"])}
				s.attrs = map[string]any{}
				if attrs, ok := m["attributes"].([]any); ok {
					for _, kv := range attrs {
						kvm, _ := kv.(map[string]any)
						if key := text(kvm["key"]); key != "" {
							t.put(s, key, anyValue(kvm["value"]))
						}
					}
				}
				s.kind = strings.ToUpper(text(s.attrs["openinference.span.kind"]))
				s.start = timeOf(m["startTimeUnixNano"], true)
				if ok, err := t.needIDs(line, s, path, "traceId", "spanId"); !ok {
					if err != nil {
						return err
					}
					continue
				}
				t.add(s)
			}
		}
	}
	return nil
}

// anyValue turns an OTLP AnyValue into a plain value.
func anyValue(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	for k, x := range m {
		switch k {
		case "stringValue", "boolValue", "intValue", "doubleValue", "bytesValue":
			return x
		case "arrayValue":
			am, _ := x.(map[string]any)
			vals, _ := am["values"].([]any)
			out := make([]any, len(vals))
			for i, e := range vals {
				out[i] = anyValue(e)
			}
			return out
		case "kvlistValue":
			km, _ := x.(map[string]any)
			vals, _ := km["values"].([]any)
			out := map[string]any{}
			for _, e := range vals {
				em, _ := e.(map[string]any)
				out[text(em["key"])] = anyValue(em["value"])
			}
			return out
		}
	}
	return nil
}

// timeOf reads a timestamp: nanoseconds as a number or numeric string
// (OTLP), an ISO 8601 text, or a number whose size says its unit (pandas
// writes epoch milliseconds).
func timeOf(v any, nanos bool) int64 {
	s := strings.TrimSpace(text(v))
	if s == "" {
		return 0
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && (nanos || n > 1e17) {
		return n // exact: a float64 keeps nanoseconds since 1970 to some 256 ns only
	}
	if n, err := strconv.ParseFloat(s, 64); err == nil {
		switch {
		case nanos || n > 1e17:
			return int64(n)
		case n > 1e14:
			return int64(n * 1e3)
		case n > 1e11:
			return int64(n * 1e6)
		}
		return int64(n * 1e9)
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999"} {
		if ts, err := time.Parse(layout, s); err == nil {
			return ts.UnixNano()
		}
	}
	return 0
}

// ---- Phoenix / OpenInference span records

// phoenixRecord reads one span record.
func (t *traceReader) phoenixRecord(line int, obj map[string]any) error {
	flat := map[string]any{}
	flatten("", obj, flat)
	s := &tspan{line: line, attrs: map[string]any{}}
	for k, v := range flat {
		if a, ok := strings.CutPrefix(k, "attributes."); ok {
			t.put(s, a, v)
		}
	}
	if raw, ok := flat["attributes"].(string); ok {
		// A Parquet or CSV export may keep the attributes as one JSON text.
		var v any
		if decodeValue([]byte(raw), &v) == nil {
			attrs := map[string]any{}
			flatten("", v, attrs)
			for k, v := range attrs {
				t.put(s, k, v)
			}
		}
	}
	s.trace = text(flat["context.trace_id"])
	s.id = text(flat["context.span_id"])
	s.parent = text(flat["parent_id"])
	s.name = text(flat["name"])
	s.kind = strings.ToUpper(text(flat["span_kind"]))
	if s.kind == "" || s.kind == "UNKNOWN" {
		s.kind = strings.ToUpper(text(s.attrs["openinference.span.kind"]))
	}
	s.start = timeOf(flat["start_time"], false)
	if ok, err := t.needIDs(line, s, "", "context.trace_id", "context.span_id"); !ok {
		return err
	}
	t.add(s)
	return nil
}

// ---- Langfuse traces

// langfuseRecord reads one trace with its observations. The trace itself
// is the root span: its input and output are the request's, when the
// application set them.
func (t *traceReader) langfuseRecord(line int, obj map[string]any) error {
	id := text(obj["id"])
	obs, ok := obj["observations"].([]any)
	if !ok {
		return t.c.bad(line, "", fmt.Sprintf(`trace %q has no "observations" list — export traces with their observations (GET /api/public/traces/{id} gives them)`, id))
	}
	root := &tspan{line: line, trace: id, id: "trace:" + id, name: text(obj["name"]), kind: "CHAIN", attrs: map[string]any{}, start: timeOf(obj["timestamp"], false)}
	if ok, err := t.needIDs(line, root, "", "id", "id"); !ok {
		return err
	}
	t.langfuseIO(root, obj)
	if scores, ok := obj["scores"].([]any); ok {
		for _, sc := range scores {
			m, _ := sc.(map[string]any)
			if strings.EqualFold(text(m["name"]), "reference") {
				ref := text(m["stringValue"])
				if ref == "" {
					ref = text(m["comment"])
				}
				root.attrs["reference"] = ref
			}
		}
	}
	t.add(root)
	for i, o := range obs {
		m, ok := o.(map[string]any)
		path := fmt.Sprintf("observations[%d]", i)
		if !ok {
			if err := t.c.bad(line, "", fmt.Sprintf("trace %q: %s is %s, not an observation — export traces with their observations' details, not only their ids", id, path, aKind(kindOfAny(o)))); err != nil {
				return err
			}
			continue
		}
		s := &tspan{line: line, trace: id, id: text(m["id"]), parent: text(m["parentObservationId"]), name: text(m["name"]), attrs: map[string]any{}}
		if tid := text(m["traceId"]); tid != "" && tid != id {
			s.trace = tid
		}
		if s.parent == "" {
			s.parent = root.id
		}
		s.kind = strings.ToUpper(text(m["type"]))
		if s.kind == "GENERATION" {
			s.kind = "LLM"
		}
		s.start = timeOf(m["startTime"], false)
		t.langfuseIO(s, m)
		if ok, err := t.needIDs(line, s, fmt.Sprintf("trace %q %s", id, path), "traceId", "id"); !ok {
			if err != nil {
				return err
			}
			continue
		}
		t.add(s)
	}
	return nil
}

// langfuseIO puts a Langfuse trace's or observation's input, output and
// metadata under the OpenInference names the request builder reads; a
// retriever's documents go under retrieval.documents.
func (t *traceReader) langfuseIO(s *tspan, m map[string]any) {
	if v, ok := m["input"]; ok && v != nil {
		t.put(s, "input.value", v)
	}
	if v, ok := m["output"]; ok && v != nil {
		t.put(s, "output.value", v)
		if docs := documentList(v); docs != nil {
			t.put(s, "retrieval.documents", docs)
		}
	}
	if md, ok := m["metadata"]; ok {
		attrs := map[string]any{}
		flatten("metadata", md, attrs)
		for k, v := range attrs {
			t.put(s, k, v)
		}
	}
}

// documentList is the list of documents a retriever's output holds: the
// output itself, or its "documents" list.
func documentList(v any) []any {
	if l, ok := v.([]any); ok {
		return l
	}
	if m, ok := v.(map[string]any); ok {
		for _, k := range []string{"documents", "docs", "results"} {
			if l, ok := m[k].([]any); ok {
				return l
			}
		}
	}
	return nil
}

func kindOfAny(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case nil:
		return "null"
	case []any:
		return "list"
	case map[string]any:
		return "object"
	case bool:
		return "boolean"
	}
	return "number"
}

func keysOf(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// ---- requests

func (t *traceReader) isLLM(s *tspan) bool {
	if sel := t.sel[mapLLM]; sel != "" {
		return strings.EqualFold(s.name, sel) || strings.EqualFold(s.kind, sel)
	}
	return s.kind == "LLM"
}

func (t *traceReader) isRetriever(s *tspan) bool {
	if sel := t.sel[mapRetriever]; sel != "" {
		return strings.EqualFold(s.name, sel) || strings.EqualFold(s.kind, sel)
	}
	return s.kind == "RETRIEVER"
}

// samples builds the requests of every trace, in the order the traces
// first appear, a trace's requests in the order they started.
func (t *traceReader) samples() error {
	if len(t.spans) == 0 {
		if t.c.skippedCount > 0 {
			return nil // finish says what was skipped
		}
		return &Error{File: t.c.name, Msg: "no spans — the file holds no spans to build samples from"}
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
	sort.SliceStable(reqs, func(i, j int) bool {
		a, b := reqs[i].llm, reqs[j].llm
		if a.line != b.line {
			return a.line < b.line
		}
		return before(a, b)
	})
	for _, r := range reqs {
		if err := t.sample(r); err != nil {
			return err
		}
	}
	requests := len(reqs)
	for f := range nFields {
		if t.attr[f] != "" && !t.seen[f] {
			return &Error{File: t.c.name, Field: fieldNames[f], Msg: fmt.Sprintf("no span has the attribute %q named by --map %s=%s (attributes seen: %s) — fix --map",
				t.attr[f], fieldNames[f], t.attr[f], list(t.attrNames()))}
		}
	}
	if requests == 0 && t.c.skippedCount == 0 {
		return &Error{File: t.c.name, Msg: fmt.Sprintf("no LLM span in its %d traces (span kinds: %s; names: %s) — a sample is built around each request's LLM span; pass --map llm=<span name or kind> to say which spans generate the answer",
			len(t.order), list(t.distinct(func(s *tspan) string { return s.kind })), list(t.distinct(func(s *tspan) string { return s.name })))}
	}
	return nil
}

func (t *traceReader) distinct(f func(*tspan) string) []string {
	set := map[string]bool{}
	for _, s := range t.spans {
		if v := f(s); v != "" {
			set[v] = true
		}
	}
	return keysOfSet(set)
}

func (t *traceReader) attrNames() []string { return keysOfSet(t.names) }

// maxNames caps the attribute names kept for messages.
const maxNames = 1000

// put sets attribute key of span s, when a request may read it: a span's
// other attributes (embedding vectors, prompt templates, token counts) can
// outweigh what is evaluated, and the file is held whole.
func (t *traceReader) put(s *tspan, key string, v any) {
	if len(t.names) < maxNames {
		t.names[key] = true
	}
	if t.keep(key) {
		s.attrs[key] = v
	}
}

// readAttrs are the attributes the request builder reads, and the prefixes
// of those it reads by index.
var (
	readAttrs    = []string{"openinference.span.kind", "input.value", "output.value", "metadata", "reference", "llm.input_messages", "llm.output_messages", "retrieval.documents"}
	readPrefixes = []string{"metadata.", "llm.input_messages.", "llm.output_messages.", "retrieval.documents."}
)

func (t *traceReader) keep(key string) bool {
	if slices.Contains(readAttrs, key) {
		return true
	}
	for _, p := range readPrefixes {
		if strings.HasPrefix(key, p) {
			return true
		}
	}
	for _, a := range t.attr {
		if a != "" && (key == a || strings.HasPrefix(key, a+".")) {
			return true
		}
	}
	return false
}

func keysOfSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
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
	parent := func(s *tspan) *tspan {
		if p := byID[s.parent]; p != nil && p != s {
			return p
		}
		return nil
	}
	// ancestors guards against a parent cycle in a damaged export.
	ancestors := func(s *tspan) []*tspan {
		var out []*tspan
		seen := map[*tspan]bool{s: true}
		for p := parent(s); p != nil && !seen[p]; p = parent(p) {
			seen[p] = true
			out = append(out, p)
		}
		return out
	}
	var llms []*tspan
	for _, s := range spans {
		if !t.isLLM(s) {
			continue
		}
		nested := false
		for _, a := range ancestors(s) {
			nested = nested || t.isLLM(a)
		}
		if !nested {
			llms = append(llms, s)
		}
	}
	sort.SliceStable(llms, func(i, j int) bool { return before(llms[i], llms[j]) })
	for _, l := range llms {
		l.llms = append(l.llms, l)
		for _, a := range ancestors(l) {
			a.llms = append(a.llms, l)
		}
	}
	var retrievers []*tspan
	for _, s := range spans {
		if t.isRetriever(s) {
			retrievers = append(retrievers, s)
		}
	}
	if len(llms) == 0 {
		if len(retrievers) > 0 {
			r := retrievers[0]
			return nil, t.c.bad(r.line, "answer", fmt.Sprintf("trace %s has a retriever span (%s) but no LLM span — its answer was not traced (the generation failed, or its span has another kind: pass --map llm=<span name>)",
				r.trace, spanWhere(r.name, r.id, "")))
		}
		return nil, nil
	}
	reqs := make(map[*tspan]*request, len(llms))
	for _, l := range llms {
		top := l
		for _, a := range ancestors(l) {
			if len(a.llms) != 1 {
				break
			}
			top = a
		}
		reqs[l] = &request{llm: l, top: top, several: len(llms) > 1}
	}
	sort.SliceStable(retrievers, func(i, j int) bool { return before(retrievers[i], retrievers[j]) })
	for _, r := range retrievers {
		var cands []*tspan
		for _, a := range append([]*tspan{r}, ancestors(r)...) {
			if len(a.llms) > 0 {
				cands = a.llms
				break
			}
		}
		if cands == nil {
			// Spans with no common parent (an application that opens no
			// span of its own around a request): by time alone.
			cands = llms
		}
		pick := cands[len(cands)-1]
		for _, l := range cands {
			if !before(l, r) {
				pick = l
				break
			}
		}
		reqs[pick].retrievers = append(reqs[pick].retrievers, r)
	}
	out := make([]*request, len(llms))
	for i, l := range llms {
		out[i] = reqs[l]
	}
	return out, nil
}

// before orders spans by start time, then by their place in the file.
func before(a, b *tspan) bool {
	if a.start != 0 && b.start != 0 && a.start != b.start {
		return a.start < b.start
	}
	return a.order < b.order
}

// sample makes the sample of one request.
func (t *traceReader) sample(r *request) error {
	c, l := t.c, r.llm
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
	if s.Question, ok = t.field(fQuestion, path, inputText); !ok || strings.TrimSpace(s.Question) == "" {
		return c.bad(l.line, "question", fmt.Sprintf("%s: no input (%s) on the request's spans — the question is the input of its root chain or of its LLM span; pass --map question=<attribute> if it is kept elsewhere", where, t.attrOr(fQuestion, "input.value")))
	}
	if s.Answer, ok = t.field(fAnswer, path, outputText); !ok {
		return c.bad(l.line, "answer", fmt.Sprintf("%s: no output (%s) on the request's spans — the LLM call did not finish or was traced without its output; pass --map answer=<attribute> if it is kept elsewhere", where, t.attrOr(fAnswer, "output.value")))
	}
	for _, rs := range r.retrievers {
		docs, err := t.documents(rs)
		if err != nil {
			return c.bad(rs.line, "contexts", fmt.Sprintf("trace %s, retriever %s: %v", rs.trace, spanWhere(rs.name, rs.id, ""), err))
		}
		s.Contexts = append(s.Contexts, docs...)
	}
	for _, sp := range append(path, r.retrievers...) {
		if v, ok := t.lookup(sp, fReference, "reference", "metadata.reference"); ok {
			s.Reference = strings.TrimSpace(text(v))
			break
		}
	}
	if t.attr[fID] != "" {
		for _, sp := range path {
			if v, ok := t.lookup(sp, fID); ok && text(v) != "" {
				s.ID = text(v)
				break
			}
		}
	}
	// A request's text comes from several spans, perhaps several lines:
	// held to the record limit as a record is, for the judges' memory.
	sizes := [nFields]int64{fQuestion: int64(len(s.Question)), fAnswer: int64(len(s.Answer)), fReference: int64(len(s.Reference)), fID: int64(len(s.ID))}
	for _, ctx := range s.Contexts {
		sizes[fContexts] += int64(len(ctx))
	}
	var total int64
	largest := fQuestion
	for f, n := range sizes {
		total += n
		if n > sizes[largest] {
			largest = f
		}
	}
	if total > c.limit {
		return c.bad(l.line, fieldNames[largest], fmt.Sprintf("%s: the request's text is %s, over the limit of %s (--max-record-bytes), most of it in its %s (%s) — raise --max-record-bytes if the request is meant to be this large",
			where, fmtSize(total), fmtSize(c.limit), fieldNames[largest], fmtSize(sizes[largest])))
	}
	return c.add(s, "")
}

func (t *traceReader) attrOr(f int, def string) string {
	if t.attr[f] != "" {
		return t.attr[f]
	}
	return def
}

// lookup finds field f on span s: under the attribute --map names, else
// under the default names given (the metadata attribute OpenInference
// keeps as a JSON text is looked into too).
func (t *traceReader) lookup(s *tspan, f int, defaults ...string) (any, bool) {
	names := defaults
	if t.attr[f] != "" {
		names = []string{t.attr[f]}
	}
	for _, n := range names {
		if v, ok := s.attrs[n]; ok && v != nil {
			if t.attr[f] != "" {
				t.seen[f] = true
			}
			return v, true
		}
		if k, ok := strings.CutPrefix(n, "metadata."); ok {
			if md, ok := s.attrs["metadata"].(string); ok {
				var v any
				if decodeValue([]byte(md), &v) == nil {
					if m, ok := v.(map[string]any); ok && m[k] != nil {
						return m[k], true
					}
				}
			}
		}
	}
	return nil, false
}

// field reads the question or answer from the request's spans, the top
// first; pick turns a span into its text under the default names.
func (t *traceReader) field(f int, path []*tspan, pick func(*tspan) (string, bool)) (string, bool) {
	for _, sp := range path {
		if t.attr[f] != "" {
			if v, ok := t.lookup(sp, f); ok {
				return text(v), true
			}
			continue
		}
		if s, ok := pick(sp); ok {
			return s, true
		}
	}
	return "", false
}

// inputText is a span's question: the last user message an LLM span was
// sent, else its input.value (the question inside a JSON input).
func inputText(s *tspan) (string, bool) {
	m := messages(s.attrs, "llm.input_messages")
	for i := len(m) - 1; i >= 0; i-- {
		if (strings.EqualFold(m[i].role, "user") || strings.EqualFold(m[i].role, "human")) && m[i].content != "" {
			return m[i].content, true
		}
	}
	v, ok := s.attrs["input.value"]
	if !ok || v == nil {
		return "", false
	}
	return pickText(v, "user", "question", "query", "input", "user_input", "message", "content", "text"), true
}

// outputText is a span's answer: an LLM span's first output message, else
// its output.value (the answer inside a JSON output). The messages come
// first because an instrumented client's output.value is often the whole
// API response.
func outputText(s *tspan) (string, bool) {
	for _, m := range messages(s.attrs, "llm.output_messages") {
		if m.content != "" {
			return m.content, true
		}
	}
	if v, ok := s.attrs["output.value"]; ok && v != nil {
		return pickText(v, "assistant", "answer", "output", "response", "result", "content", "text", "message"), true
	}
	return "", false
}

type message struct{ role, content string }

// messages reads OpenInference's indexed messages under prefix
// (prefix.N.message.role, prefix.N.message.content), or a list of them.
func messages(attrs map[string]any, prefix string) []message {
	byN := map[int]*message{}
	for k, v := range attrs {
		rest, ok := strings.CutPrefix(k, prefix+".")
		if !ok {
			continue
		}
		ns, field, _ := strings.Cut(rest, ".")
		n, err := strconv.Atoi(ns)
		if err != nil {
			continue
		}
		if byN[n] == nil {
			byN[n] = &message{}
		}
		switch {
		case field == "message.role":
			byN[n].role = text(v)
		case field == "message.content":
			byN[n].content = text(v)
		case strings.HasPrefix(field, "message.contents.") && strings.HasSuffix(field, ".message_content.text") && byN[n].content == "":
			// A message in parts (OpenInference's message.contents.M):
			// its first text part.
			byN[n].content = text(v)
		}
	}
	if l, ok := attrs[prefix].([]any); ok {
		for i, e := range l {
			flat := map[string]any{}
			flatten("", e, flat)
			byN[i] = &message{role: text(flat["message.role"]), content: text(flat["message.content"])}
		}
	}
	ns := make([]int, 0, len(byN))
	for n := range byN {
		ns = append(ns, n)
	}
	sort.Ints(ns)
	out := make([]message, 0, len(ns))
	for _, n := range ns {
		out = append(out, *byN[n])
	}
	return out
}

// pickText is the text of an input or output value: a string as it is (a
// JSON object written as a string is looked into), from an object the
// first of keys holding one, from a list of chat messages the last with
// role (else the last).
func pickText(v any, role string, keys ...string) string {
	if s, ok := v.(string); ok {
		st := strings.TrimSpace(s)
		if !strings.HasPrefix(st, "{") && !strings.HasPrefix(st, "[") {
			return s
		}
		var parsed any
		if decodeValue([]byte(st), &parsed) != nil {
			return s
		}
		if out := pickText(parsed, role, keys...); out != "" && out != st {
			return out
		}
		return s
	}
	switch x := v.(type) {
	case map[string]any:
		for _, k := range keys {
			if sub, ok := x[k]; ok && sub != nil {
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
			if m, ok := e.(map[string]any); ok && strings.EqualFold(text(m["role"]), role) {
				last = m["content"]
			}
		}
		if last == nil && len(x) > 0 {
			if m, ok := x[len(x)-1].(map[string]any); ok {
				last = m["content"]
			}
		}
		if last != nil {
			return pickText(last, role, keys...)
		}
	}
	return text(v)
}

// documents are a retriever span's chunks in rank order: the indexed
// prefix.N.document.content attributes by N, or a list under prefix (of
// texts, or of documents with document.content, content, page_content or
// text).
func (t *traceReader) documents(s *tspan) ([]string, error) {
	prefix := "retrieval.documents"
	if t.attr[fContexts] != "" {
		prefix = t.attr[fContexts]
	}
	type doc struct {
		n    int
		text string
	}
	var docs []doc
	for k, v := range s.attrs {
		rest, ok := strings.CutPrefix(k, prefix+".")
		if !ok {
			continue
		}
		ns, field, _ := strings.Cut(rest, ".")
		n, err := strconv.Atoi(ns)
		if err != nil || (field != "document.content" && field != "") {
			continue
		}
		docs = append(docs, doc{n, text(v)})
	}
	if l, ok := s.attrs[prefix].([]any); ok {
		for i, e := range l {
			docs = append(docs, doc{i, documentText(e)})
		}
	} else if str, ok := s.attrs[prefix].(string); ok {
		var v any
		if decodeValue([]byte(str), &v) == nil {
			if l, ok := v.([]any); ok {
				for i, e := range l {
					docs = append(docs, doc{i, documentText(e)})
				}
			}
		}
	}
	if t.attr[fContexts] != "" && docs != nil {
		t.seen[fContexts] = true
	}
	sort.SliceStable(docs, func(i, j int) bool { return docs[i].n < docs[j].n })
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
	if _, ok := e.(map[string]any); !ok {
		return text(e)
	}
	flat := map[string]any{}
	flatten("", e, flat)
	for _, k := range []string{"document.content", "content", "page_content", "pageContent", "text"} {
		if v, ok := flat[k]; ok {
			return text(v)
		}
	}
	return text(e)
}

// readPhoenixParquet reads the spans of a Parquet file written from
// Phoenix's spans dataframe (df.to_parquet): a row per span, its columns
// named as the dataframe's, a document list as a list of structs.
func readPhoenixParquet(c *collector, f *parquet.File) error {
	t := newTraceReader(c, FormatPhoenix, c.traceMap)
	c.unit = unitRow
	schema := f.Schema()
	row := 0
	buf := make([]parquet.Row, 64)
	for _, rg := range f.RowGroups() {
		rows := rg.Rows()
		for {
			n, err := rows.ReadRows(buf)
			for _, r := range buf[:n] {
				row++
				m := map[string]any{}
				if rerr := schema.Reconstruct(&m, r); rerr != nil {
					rows.Close()
					return c.parquetDamaged(fmt.Errorf("row %d: %w", row, rerr))
				}
				if perr := t.phoenixRecord(row, m); perr != nil {
					rows.Close()
					return perr
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				rows.Close()
				return c.parquetDamaged(fmt.Errorf("reading row %d: %w", row+1, err))
			}
		}
		if err := rows.Close(); err != nil {
			return c.parquetDamaged(err)
		}
	}
	return t.samples()
}
