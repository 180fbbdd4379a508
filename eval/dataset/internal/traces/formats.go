package traces

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// records calls each with every record of the file: each line of JSON
// Lines, else each element of the array the file holds (also under
// "data"), else the one object it is.
func (t *traceReader) records(br *bufio.Reader, each func(line int, obj map[string]any) error) error {
	if head, _ := br.Peek(br.Size()); firstLineWhole(head) {
		return t.c.EachLine(br, func(line int, b []byte) error {
			obj, err := read.DecodeObject(b)
			if err != nil {
				return t.c.Bad(line, "", err.Error())
			}
			return each(line, obj)
		})
	}
	data, err := io.ReadAll(io.LimitReader(br, maxTraceFileBytes+1))
	if err != nil {
		return fmt.Errorf("%s: %w", t.c.Name, err)
	}
	if len(data) > maxTraceFileBytes {
		return &read.Error{File: t.c.Name, Msg: fmt.Sprintf("a trace file that is not JSON Lines is read whole, and this one is over %s — export one record per line (JSON Lines), which has no limit but --max-record-bytes per line", read.FmtSize(maxTraceFileBytes))}
	}
	whole, err := read.DecodeJSON(data)
	if err != nil {
		e := &read.Error{File: t.c.Name, Msg: err.Error()}
		var se *json.SyntaxError
		if errors.As(json.Unmarshal(data, new(json.RawMessage)), &se) && se.Offset <= int64(len(data)) {
			e.Line = lineAt(data, se.Offset)
		}
		return e
	}
	if obj, ok := whole.(map[string]any); ok {
		if list, ok := obj["data"].([]any); ok && t.format != read.FormatOTLP {
			whole = list
		} else {
			return each(1, obj)
		}
	}
	list, ok := whole.([]any)
	if !ok {
		return &read.Error{File: t.c.Name, Msg: "is neither an object nor a list of objects — export the spans as JSON Lines"}
	}
	starts := elementLines(data)
	for i, el := range list {
		line := i + 1
		if i < len(starts) {
			line = starts[i]
		}
		obj, ok := el.(map[string]any)
		if ok {
			err = each(line, obj)
		} else {
			err = t.c.Bad(line, "", fmt.Sprintf("element %d is not an object", i+1))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// lineAt is the line of data that byte off is on.
func lineAt(data []byte, off int64) int {
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// firstLineWhole reports whether the file is JSON Lines: its first line is
// an object, whole, broken or longer than the window, rather than the "{"
// a pretty-printed object opens with.
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
	tok, _ := dec.Token() // nil on an error: not a list, so no lines
	for tok == json.Delim('{') {
		key, err := dec.Token()
		switch {
		case err != nil || key == json.Delim('}'):
			return nil
		case key == "data":
			if tok, _ = dec.Token(); tok != json.Delim('[') {
				return nil
			}
		case dec.Decode(new(json.RawMessage)) != nil:
			return nil
		}
	}
	if tok != json.Delim('[') {
		return nil
	}
	var out []int
	for dec.More() {
		rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n,")
		out = append(out, lineAt(data, int64(len(data)-len(rest))))
		if dec.Decode(new(json.RawMessage)) != nil {
			break
		}
	}
	return out
}

// Sniff tells a trace export by the keys of its first record (of a JSON
// Lines file, a JSON array, or the list under "data"); "" when it is not
// one.
func Sniff(head []byte) string {
	dec := json.NewDecoder(bytes.NewReader(head))
	tok, _ := dec.Token() // nil on an error
	if tok == json.Delim('[') {
		tok, _ = dec.Token()
	}
	if tok != json.Delim('{') {
		return ""
	}
	keys := map[string]bool{}
	var ctx map[string]any
	for dec.More() {
		k, _ := dec.Token()
		key, ok := k.(string)
		if !ok {
			break
		}
		keys[key] = true
		if key == "data" && len(keys) == 1 {
			list, _ := dec.Token()
			first, _ := dec.Token()
			if list != json.Delim('[') || first != json.Delim('{') {
				break
			}
			keys = map[string]bool{}
			continue
		}
		var v any = new(json.RawMessage)
		if key == "context" {
			v = &ctx
		}
		if dec.Decode(v) != nil {
			break // the record goes on past the window
		}
	}
	switch {
	case keys["resourceSpans"]:
		return read.FormatOTLP
	case keys["observations"]:
		return read.FormatLangfuse
	case keys["context.trace_id"], keys["context.span_id"],
		ctx != nil && (ctx["trace_id"] != nil || ctx["span_id"] != nil) && (keys["span_kind"] || keys["parent_id"]):
		return read.FormatPhoenix
	}
	return ""
}

// flatten puts the values of nested objects under dotted keys into out,
// and gives out; lists stay values.
func flatten(prefix string, v any, out map[string]any) map[string]any {
	m, ok := v.(map[string]any)
	switch {
	case ok && (len(m) > 0 || prefix == ""):
		for k, sub := range m {
			if prefix != "" {
				k = prefix + "." + k
			}
			flatten(k, sub, out)
		}
	case prefix != "":
		out[prefix] = v
	}
	return out
}

// text is a value as text: a string as it is, null as "", anything else as
// JSON (a number as written).
func text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case time.Time:
		return x.Format(time.RFC3339Nano)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// ---- OTLP/JSON

// otlpRecord reads one ExportTraceServiceRequest.
func (t *traceReader) otlpRecord(line int, obj map[string]any) error {
	rss, ok := obj["resourceSpans"].([]any)
	if !ok {
		return t.c.Bad(line, "", fmt.Sprintf(`has no "resourceSpans" list (keys: %s) — an OTLP/JSON file holds ExportTraceServiceRequest objects, one per line as the collector's file exporter writes them`, read.List(slices.Collect(maps.Keys(obj)))))
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
					if err := t.c.Bad(line, "", path+" is not an object"); err != nil {
						return err
					}
					continue
				}
				s := &tspan{line: line, trace: text(m["traceId"]), id: text(m["spanId"]), parent: text(m["parentSpanId"]), name: text(m["name"]), attrs: map[string]any{}}
				attrs, _ := m["attributes"].([]any)
				for _, kv := range attrs {
					kvm, _ := kv.(map[string]any)
					if key := text(kvm["key"]); key != "" {
						t.put(s, key, anyValue(kvm["value"]))
					}
				}
				s.kind = strings.ToUpper(text(s.attrs["openinference.span.kind"]))
				s.start = timeOf(m["startTimeUnixNano"], true)
				if err := t.add(line, s, path, "traceId", "spanId"); err != nil {
					return err
				}
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
		xm, _ := x.(map[string]any)
		vals, _ := xm["values"].([]any)
		switch k {
		case "stringValue", "boolValue", "intValue", "doubleValue", "bytesValue":
			return x
		case "arrayValue":
			out := make([]any, len(vals))
			for i, e := range vals {
				out[i] = anyValue(e)
			}
			return out
		case "kvlistValue":
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

// timeOf reads a timestamp: OTLP's nanoseconds, an ISO 8601 text, or a
// number whose size says its unit (pandas writes epoch milliseconds).
func timeOf(v any, nanos bool) int64 {
	s := strings.TrimSpace(text(v))
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
	flat := flatten("", obj, map[string]any{})
	s := &tspan{line: line, trace: text(flat["context.trace_id"]), id: text(flat["context.span_id"]), parent: text(flat["parent_id"]),
		name: text(flat["name"]), kind: strings.ToUpper(text(flat["span_kind"])), attrs: map[string]any{}}
	for k, v := range flat {
		if a, ok := strings.CutPrefix(k, "attributes."); ok {
			t.put(s, a, v)
		}
	}
	if raw, ok := flat["attributes"].(string); ok {
		// A Parquet or CSV export may keep the attributes as one JSON text.
		if v, err := read.DecodeJSON([]byte(raw)); err == nil {
			for k, v := range flatten("", v, map[string]any{}) {
				t.put(s, k, v)
			}
		}
	}
	if s.kind == "" || s.kind == "UNKNOWN" {
		s.kind = strings.ToUpper(text(s.attrs["openinference.span.kind"]))
	}
	s.start = timeOf(flat["start_time"], false)
	return t.add(line, s, "", "context.trace_id", "context.span_id")
}

// ---- Langfuse traces

// langfuseRecord reads one trace with its observations, the trace being
// the root span.
func (t *traceReader) langfuseRecord(line int, obj map[string]any) error {
	id := text(obj["id"])
	obs, ok := obj["observations"].([]any)
	if !ok {
		return t.c.Bad(line, "", fmt.Sprintf(`trace %q has no "observations" list — export traces with their observations (GET /api/public/traces/{id} gives them)`, id))
	}
	root := &tspan{line: line, trace: id, id: "trace:" + id, name: text(obj["name"]), kind: "CHAIN", attrs: map[string]any{}, start: timeOf(obj["timestamp"], false)}
	// The root is refused only for want of an id.
	if err := t.add(line, root, "", "id", "id"); err != nil || id == "" {
		return err
	}
	t.langfuseIO(root, obj)
	scores, _ := obj["scores"].([]any)
	for _, sc := range scores {
		m, _ := sc.(map[string]any)
		if strings.EqualFold(text(m["name"]), "reference") {
			root.attrs["reference"] = cmp.Or(text(m["stringValue"]), text(m["comment"]))
		}
	}
	for i, o := range obs {
		m, ok := o.(map[string]any)
		path := fmt.Sprintf("observations[%d]", i)
		if !ok {
			raw, _ := json.Marshal(o)
			if err := t.c.Bad(line, "", fmt.Sprintf("trace %q: %s is %s, not an observation — export traces with their observations' details, not only their ids", id, path, read.AKind(read.KindOf(raw)))); err != nil {
				return err
			}
			continue
		}
		s := &tspan{line: line, trace: cmp.Or(text(m["traceId"]), id), id: text(m["id"]),
			parent: cmp.Or(text(m["parentObservationId"]), root.id), name: text(m["name"]), attrs: map[string]any{}}
		s.kind = strings.ToUpper(text(m["type"]))
		if s.kind == "GENERATION" {
			s.kind = "LLM"
		}
		s.start = timeOf(m["startTime"], false)
		t.langfuseIO(s, m)
		if err := t.add(line, s, fmt.Sprintf("trace %q %s", id, path), "traceId", "id"); err != nil {
			return err
		}
	}
	return nil
}

// langfuseIO puts a Langfuse trace's or observation's input, output,
// documents and metadata under the OpenInference names.
func (t *traceReader) langfuseIO(s *tspan, m map[string]any) {
	if v := m["input"]; v != nil {
		t.put(s, "input.value", v)
	}
	if v := m["output"]; v != nil {
		t.put(s, "output.value", v)
		if docs := documentList(v); docs != nil {
			t.put(s, "retrieval.documents", docs)
		}
	}
	if md, ok := m["metadata"]; ok {
		for k, v := range flatten("metadata", md, map[string]any{}) {
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
	m, _ := v.(map[string]any)
	for _, k := range []string{"documents", "docs", "results"} {
		if l, ok := m[k].([]any); ok {
			return l
		}
	}
	return nil
}
