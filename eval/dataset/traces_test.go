package dataset

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"
)

// otlpSpan writes one OTLP/JSON span; attrs alternate key and string value.
func otlpSpan(trace, id, parent, name, kind string, start int, attrs ...string) map[string]any {
	kv := []any{map[string]any{"key": "openinference.span.kind", "value": map[string]any{"stringValue": kind}}}
	for i := 0; i+1 < len(attrs); i += 2 {
		kv = append(kv, map[string]any{"key": attrs[i], "value": map[string]any{"stringValue": attrs[i+1]}})
	}
	s := map[string]any{"traceId": trace, "spanId": id, "name": name, "kind": 1,
		"startTimeUnixNano": strconv.Itoa(1764800000000000000 + start), "attributes": kv}
	if parent != "" {
		s["parentSpanId"] = parent
	}
	return s
}

// otlpLine is one ExportTraceServiceRequest holding spans, as a line.
func otlpLine(spans ...map[string]any) string {
	req := map[string]any{"resourceSpans": []any{map[string]any{
		"resource":   map[string]any{"attributes": []any{}},
		"scopeSpans": []any{map[string]any{"scope": map[string]any{"name": "t"}, "spans": spans}},
	}}}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return string(b) + "\n"
}

// TestTraceFixtures reads the exports in testdata/traces: each format to
// its samples (id|question|answer|contexts|reference|line), chunks in rank
// order, a request without a retriever span, two requests in one trace.
func TestTraceFixtures(t *testing.T) {
	tests := []struct {
		file, format string
		want         []string
	}{
		{
			// The retriever's documents come as 2, 0, 1 in its attributes;
			// trace 0af7… holds two requests whose spans come in two lines;
			// trace 4bf9… is an LLM call without a retriever.
			file: "otlp.jsonl", format: FormatOTLP,
			want: []string{
				"5b8efff798038103d269b633813fc60c|小规模纳税人转为一般纳税人后，纳税人识别号会变吗？|不会变。转登记为一般纳税人后，纳税人识别号保持不变，无需重新办理税务登记。|纳税人识别号是税务登记的唯一代码，一般纳税人登记不改变纳税人识别号。+小规模纳税人年应税销售额超过500万元的，应当办理一般纳税人登记。+一般纳税人登记后，可以按规定领用增值税专用发票。|纳税人识别号不变。|1",
				"0af7651916cd43dd8448eb211c80319c/b7ad6b7169203334|What is the VAT rate for small-scale taxpayers?|The levy rate is 3%, reduced to 1% in some periods.|Small-scale taxpayers pay VAT at a levy rate of 3%.+The rate was reduced to 1% for certain periods.||2",
				"0af7651916cd43dd8448eb211c80319c/b7ad6b7169203337|Can they issue special VAT invoices?|Yes, they may issue them themselves.|Small-scale taxpayers may issue special VAT invoices themselves.||2",
				"4bf92f3577b34da6a3ce929d0e0e4736|你好，你是谁？|我是企业知识库助手。|||2",
			},
		},
		{
			file: "phoenix_spans.jsonl", format: FormatPhoenix,
			want: []string{
				"f1e2d3c4b5a69788796a5b4c3d2e1f00|增值税专用发票可以由谁开具？|一般纳税人可以自行开具，小规模纳税人也可以自行开具。|一般纳税人可自行开具增值税专用发票。+小规模纳税人可以自愿使用增值税发票管理系统自行开具增值税专用发票。||3",
				"0011223344556677889900aabbccddee|What does ragscope do?|It scores RAG answers.|||4",
			},
		},
		{
			// The reference is the trace's "reference" score; the second
			// trace has no output of its own, so its generation's is the answer.
			file: "langfuse_traces.json", format: FormatLangfuse,
			want: []string{
				"7c9e6679-7425-40de-944b-e07fc1f90ae7|发票丢失了怎么办？|可凭对方加盖公章的记账联复印件作为记账凭证。|丢失已开具专用发票的发票联，可凭记账联复印件作为记账凭证。+丢失抵扣联的，可使用发票联复印件留存备查。|凭记账联复印件作为记账凭证。|2",
				"a3bb189e-8bf9-3888-9912-ace4e6543002|hello|Hello! How can I help?|||100",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			l, err := sameAsLoad(t, filepath.Join("..", "..", "testdata", "traces", tt.file), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if l.Format != tt.format {
				t.Errorf("Format = %q, want %q", l.Format, tt.format)
			}
			if got := loaded(l); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestTraceShapes reads trace files of other shapes and --map.
func TestTraceShapes(t *testing.T) {
	const tr = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	flatSiblings := otlpLine(
		otlpSpan(tr, "01", "", "agent", "CHAIN", 0, "input.value", "root"),
		otlpSpan(tr, "02", "01", "search", "RETRIEVER", 1, "retrieval.documents.0.document.content", "chunk for q1"),
		otlpSpan(tr, "03", "01", "llm", "LLM", 2, "input.value", "q1", "output.value", "a1"),
		otlpSpan(tr, "04", "01", "search", "RETRIEVER", 3, "retrieval.documents.1.document.content", "second for q2", "retrieval.documents.0.document.content", "first for q2"),
		otlpSpan(tr, "05", "01", "llm", "LLM", 4, "input.value", "q2", "output.value", "a2"),
	)
	pretty, _ := json.MarshalIndent(json.RawMessage(strings.TrimSpace(otlpLine(
		otlpSpan(tr, "01", "", "rag", "CHAIN", 0, "input.value", `{"question": "q", "history": []}`, "output.value", `{"answer": "a"}`),
		otlpSpan(tr, "02", "01", "r", "RETRIEVER", 1, "retrieval.documents.0.document.content", "c"),
		otlpSpan(tr, "03", "01", "g", "LLM", 2, "output.value", "raw"),
	))), "", "  ")
	custom := otlpLine(
		otlpSpan(tr, "01", "", "handle", "", 0, "app.question", "q", "app.answer", "a", "app.gold", "ref", "app.request_id", "req-7"),
		otlpSpan(tr, "02", "01", "vector_search", "", 1, "hits.1", "second", "hits.0", "first"),
		otlpSpan(tr, "03", "01", "chat", "", 2),
	)
	phoenixREST := `{"data": [
  {"name": "q", "context": {"trace_id": "t1", "span_id": "s1"}, "span_kind": "CHAIN", "parent_id": null, "start_time": "2026-12-01T08:00:00Z",
   "attributes": {"input.value": "问题", "output.value": "回答"}},
  {"name": "r", "context": {"trace_id": "t1", "span_id": "s2"}, "span_kind": "RETRIEVER", "parent_id": "s1", "start_time": "2026-12-01T08:00:01Z",
   "attributes": {"retrieval": {"documents": [{"document": {"content": "片段一"}}, {"document": {"content": "片段二"}}]}}},
  {"name": "g", "context": {"trace_id": "t1", "span_id": "s3"}, "span_kind": "LLM", "parent_id": "s1", "start_time": "2026-12-01T08:00:02Z",
   "attributes": {"output.value": "回答"}}
]}
`
	langfuseOld := `{"id": "t9", "input": "q", "output": "a", "observations": [
 {"id": "o1", "type": "SPAN", "name": "retrieve", "output": {"documents": ["d1", "d2"]}, "startTime": "2026-12-01T08:00:00Z"},
 {"id": "o2", "type": "GENERATION", "name": "llm", "output": "a", "startTime": "2026-12-01T08:00:01Z"}]}
`
	openaiLLM := otlpLine(
		otlpSpan("c1", "01", "", "ChatCompletion", "LLM", 0,
			"input.value", `{"model": "gpt-4o", "messages": [{"role": "user", "content": "q"}]}`,
			"output.value", `{"id": "chatcmpl-1", "choices": [{"index": 0, "message": {"role": "assistant", "content": "a"}}]}`,
			"llm.output_messages.0.message.role", "assistant", "llm.output_messages.0.message.content", "a"),
		otlpSpan("c2", "01", "", "ChatCompletion", "LLM", 1,
			"llm.input_messages.0.message.role", "user", "llm.input_messages.0.message.contents.0.message_content.type", "text",
			"llm.input_messages.0.message.contents.0.message_content.text", "q2",
			"output.value", `{"id": "chatcmpl-2", "choices": [{"index": 0, "message": {"role": "assistant", "content": "a2"}}]}`),
	)
	tests := []struct {
		name, file, in string
		opt            Options
		want           []string
	}{
		{
			name: "an instrumented client's LLM spans: the API request and response as input and output, a message in parts",
			file: "openai.jsonl", in: openaiLLM,
			want: []string{"c1|q|a|||1", "c2|q2|a2|||1"},
		},
		{
			name: "two requests side by side under one chain: each retriever goes to the LLM after it",
			file: "flat.jsonl", in: flatSiblings,
			want: []string{tr + "/03|q1|a1|chunk for q1||1", tr + "/05|q2|a2|first for q2+second for q2||1"},
		},
		{
			name: "one pretty-printed request object; JSON input and output looked into",
			file: "otlp.json", in: string(pretty) + "\n",
			want: []string{tr + "|q|a|c||1"},
		},
		{
			name: "custom conventions through --map",
			file: "custom.otlp", in: custom,
			opt:  Options{Map: map[string]string{"llm": "chat", "retriever": "vector_search", "question": "app.question", "answer": "app.answer", "contexts": "hits", "reference": "app.gold", "id": "app.request_id"}},
			want: []string{"req-7|q|a|first+second|ref|1"},
		},
		{
			name: "Phoenix REST spans under data, nested context and attributes",
			file: "spans.json", in: phoenixREST,
			want: []string{"t1|问题|回答|片段一+片段二||6"},
		},
		{
			name: "Langfuse retriever as a SPAN named by --map",
			file: "trace.json", in: langfuseOld,
			opt:  Options{Map: map[string]string{"retriever": "retrieve"}},
			want: []string{"t9|q|a|d1+d2||1"},
		},
		{
			name: "a trace with a retriever and no LLM is skipped under --skip-invalid",
			file: "x.jsonl",
			in: otlpLine(otlpSpan("t1", "01", "", "r", "RETRIEVER", 0, "retrieval.documents.0.document.content", "c")) +
				otlpLine(otlpSpan("t2", "01", "", "g", "LLM", 0, "input.value", "q", "output.value", "a")),
			opt:  Options{SkipInvalid: true},
			want: []string{"t2|q|a|||2"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := sameAsLoad(t, path, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if got := loaded(l); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// TestTraceErrors: damaged and unusable trace files are errors naming the
// file, the line and the span, and saying what to do.
func TestTraceErrors(t *testing.T) {
	good := otlpLine(
		otlpSpan("t1", "01", "", "rag", "CHAIN", 0, "input.value", "q"),
		otlpSpan("t1", "02", "01", "g", "LLM", 1, "output.value", "a", "llm.token_count.total", "12"),
	)
	noSpanID := otlpSpan("t1", "", "01", "retrieve", "RETRIEVER", 1)
	delete(noSpanID, "spanId")
	tests := []struct {
		name, file, in string
		opt            Options
		want           []string
	}{
		{
			name: "truncated JSON Lines file",
			file: "otlp.jsonl", in: good + good[:len(good)/2],
			want: []string{"otlp.jsonl:2:", "ends in the middle of a value", "cut short"},
		},
		{
			name: "truncated JSON array",
			file: "lf.json", in: `[{"id": "t", "observations": [{"id": "o", "type": "GENERATION"`,
			want: []string{"lf.json:1: invalid JSON: it ends in the middle of a value"},
		},
		{
			name: "a span without its spanId",
			file: "otlp.jsonl", in: good + otlpLine(noSpanID),
			want: []string{"otlp.jsonl:2:", `span "retrieve" (resourceSpans[0].scopeSpans[0].spans[0]) has no spanId`, "--skip-invalid"},
		},
		{
			name: "a Phoenix span without its trace id",
			file: "spans.jsonl", in: `{"name": "g", "context.span_id": "s1", "span_kind": "LLM", "parent_id": null}` + "\n",
			want: []string{"spans.jsonl:1:", `span "g" s1 has no context.trace_id`},
		},
		{
			name: "an LLM span without output",
			file: "otlp.jsonl", in: otlpLine(otlpSpan("t1", "02", "", "g", "LLM", 1, "input.value", "q")),
			want: []string{"otlp.jsonl:1:", `field "answer"`, `trace t1, LLM span "g" 02: no output (output.value)`},
		},
		{
			name: "no LLM span anywhere",
			file: "otlp.jsonl", in: otlpLine(otlpSpan("t1", "01", "", "handler", "CHAIN", 0, "input.value", "q")),
			want: []string{"otlp.jsonl: no LLM span in its 1 traces (span kinds: CHAIN; names: handler)", "--map llm="},
		},
		{
			name: "a retriever without an LLM span",
			file: "otlp.jsonl", in: otlpLine(otlpSpan("t1", "01", "", "r", "RETRIEVER", 0)),
			want: []string{"otlp.jsonl:1:", "trace t1 has a retriever span", "no LLM span"},
		},
		{
			name: "--map names an attribute no span has",
			file: "otlp.jsonl", in: good, opt: Options{Map: map[string]string{"reference": "gold"}},
			want: []string{`field "reference"`, `no span has the attribute "gold"`, "input.value, llm.token_count.total", "fix --map"},
		},
		{
			name: "a document rank given twice",
			file: "otlp.jsonl", in: otlpLine(
				otlpSpan("t1", "01", "", "r", "RETRIEVER", 0, "retrieval.documents.0.document.content", "a", "retrieval.documents.00.document.content", "b"),
				otlpSpan("t1", "02", "", "g", "LLM", 1, "input.value", "q", "output.value", "a")),
			want: []string{`field "contexts"`, "document 0 is given twice"},
		},
		{
			name: "Langfuse observations as ids only",
			file: "lf.json", in: `[{"id": "t", "observations": ["o1", "o2"]}]`,
			want: []string{"lf.json:1:", `trace "t": observations[0] is a string`, "details"},
		},
		{
			name: "span selectors on a CSV file",
			file: "d.csv", in: "question,answer\nq,a\n", opt: Options{Map: map[string]string{"llm": "chat"}},
			want: []string{"d.csv: --map llm= selects spans of a trace file", "read as csv"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := sameAsLoad(t, path, tt.opt)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}

// TestTraceParentCycle: a damaged export whose spans are each other's
// parents still reads (no endless walk up the tree).
func TestTraceParentCycle(t *testing.T) {
	in := otlpLine(
		otlpSpan("t1", "01", "02", "a", "CHAIN", 0, "input.value", "q"),
		otlpSpan("t1", "02", "01", "b", "CHAIN", 1),
		otlpSpan("t1", "03", "02", "g", "LLM", 2, "input.value", "q", "output.value", "a"),
	)
	path := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Samples) != 1 || l.Samples[0].Answer != "a" {
		t.Fatalf("samples %v", loaded(l))
	}
}

// Phoenix's spans dataframe as pyarrow writes it with df.to_parquet:
// optional string columns, the documents a list of structs, times as
// microsecond timestamps.
type pqDocument struct {
	Content *string  `parquet:"document.content,optional"`
	ID      *string  `parquet:"document.id,optional"`
	Score   *float64 `parquet:"document.score,optional"`
}

type pqPhoenixSpan struct {
	Name      *string      `parquet:"name,optional"`
	SpanKind  *string      `parquet:"span_kind,optional"`
	ParentID  *string      `parquet:"parent_id,optional"`
	StartTime time.Time    `parquet:"start_time,timestamp(microsecond)"`
	SpanID    *string      `parquet:"context.span_id,optional"`
	TraceID   *string      `parquet:"context.trace_id,optional"`
	Input     *string      `parquet:"attributes.input.value,optional"`
	Output    *string      `parquet:"attributes.output.value,optional"`
	Documents []pqDocument `parquet:"attributes.retrieval.documents,optional,list"`
}

// TestPhoenixParquet: the Phoenix fixture's spans written as Parquet read
// as the same samples, rows counted from 1.
func TestPhoenixParquet(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "traces", "phoenix_spans.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	str := func(v any) *string {
		if v == nil {
			return nil
		}
		s := v.(string)
		return &s
	}
	var rows []pqPhoenixSpan
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		r := pqPhoenixSpan{Name: str(m["name"]), SpanKind: str(m["span_kind"]), ParentID: str(m["parent_id"]),
			StartTime: time.UnixMilli(int64(m["start_time"].(float64))).UTC(),
			SpanID:    str(m["context.span_id"]), TraceID: str(m["context.trace_id"]),
			Input: str(m["attributes.input.value"]), Output: str(m["attributes.output.value"])}
		docs, _ := m["attributes.retrieval.documents"].([]any)
		for _, d := range docs {
			dm := d.(map[string]any)
			score := dm["document.score"].(float64)
			r.Documents = append(r.Documents, pqDocument{Content: str(dm["document.content"]), ID: str(dm["document.id"]), Score: &score})
		}
		rows = append(rows, r)
	}
	// Rows out of time order: the requests still come in the order their
	// traces first appear, the chunks in rank order.
	rows[0], rows[1] = rows[1], rows[0]
	path := filepath.Join(t.TempDir(), "spans.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[pqPhoenixSpan](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	l, err := sameAsLoad(t, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"f1e2d3c4b5a69788796a5b4c3d2e1f00|增值税专用发票可以由谁开具？|一般纳税人可以自行开具，小规模纳税人也可以自行开具。|一般纳税人可自行开具增值税专用发票。+小规模纳税人可以自愿使用增值税发票管理系统自行开具增值税专用发票。||3",
		"0011223344556677889900aabbccddee|What does ragscope do?|It scores RAG answers.|||4",
	}
	if l.Format != FormatPhoenix {
		t.Errorf("Format = %q", l.Format)
	}
	if got := loaded(l); !reflect.DeepEqual(got, want) {
		t.Errorf("samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestTraceRequestLimit: a request whose spans are each within
// --max-record-bytes but whose text together is not is refused as a record
// over the limit would be, naming its largest field.
func TestTraceRequestLimit(t *testing.T) {
	l1 := otlpLine(otlpSpan("t1", "01", "", "r", "RETRIEVER", 0, "retrieval.documents.0.document.content", strings.Repeat("c", 1000), "retrieval.documents.1.document.content", strings.Repeat("d", 300)))
	l2 := otlpLine(otlpSpan("t1", "02", "", "g", "LLM", 1, "input.value", "q", "output.value", strings.Repeat("a", 1000)))
	limit := max(len(l1), len(l2))
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, []byte(l1+l2), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := sameAsLoad(t, path, Options{MaxRecordBytes: int64(limit)})
	for _, w := range []string{"big.jsonl:2:", `field "contexts"`, "the request's text is 2.2 KiB, over the limit", "most of it in its contexts (1.3 KiB)"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v\nlacks %q", err, w)
		}
	}
}

// TestTraceFileShapes: how a trace file is cut into records — JSON Lines
// whatever the first line's length, a pretty-printed document whole, a
// syntax error in one named by its line.
func TestTraceFileShapes(t *testing.T) {
	const tr = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	big := otlpLine(otlpSpan(tr, "01", "", "g", "LLM", 0, "input.value", "q", "output.value", strings.Repeat("长", (1<<20)/2)))
	pretty := "{\n  \"resourceSpans\": [\n    {\"scopeSpans\": [{\"spans\": [\n" +
		`{"traceId": "t", "spanId": "s", "name": "g", "attributes": [{"key": "openinference.span.kind", "value": {"stringValue": "LLM"}}, {"key": "input.value", "value": {"stringValue": "q"}}, {"key": "output.value", "value": {"stringValue": "a"}},]}` + "\n]}]}]\n}\n"
	tests := []struct {
		name, in, want string
	}{
		{"a first line longer than the sniffing window", big + otlpLine(otlpSpan("t2", "01", "", "g", "LLM", 0, "input.value", "q2", "output.value", "a2")), "2 samples"},
		{"a syntax error in a pretty-printed document", pretty, "otlp.json:4: invalid JSON"},
		{"a broken first line of JSON Lines", `{"resourceSpans": [}` + "\n" + otlpLine(), "otlp.json:1: invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "otlp.json")
			if err := os.WriteFile(path, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := sameAsLoad(t, path, Options{MaxRecordBytes: 4 << 20})
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = strconv.Itoa(len(l.Samples)) + " samples"
			}
			if !strings.Contains(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestDecodeLineTraces: a watched log's line is a record or a batch of
// whole traces; a trace not whole in its line is named and left out, the
// line's other requests still given.
func TestDecodeLineTraces(t *testing.T) {
	rag := []map[string]any{
		otlpSpan("t1", "01", "", "rag", "CHAIN", 0, "input.value", "q1", "output.value", "a1"),
		otlpSpan("t1", "02", "01", "r", "RETRIEVER", 1, "retrieval.documents.1.document.content", "c2", "retrieval.documents.0.document.content", "c1"),
		otlpSpan("t1", "03", "01", "g", "LLM", 2, "output.value", "a1"),
	}
	chat := otlpSpan("t2", "01", "", "g", "LLM", 3, "input.value", "q2", "output.value", "a2")
	orphan := otlpSpan("t3", "05", "04", "g", "LLM", 4, "input.value", "q3", "output.value", "a3")
	noID := otlpSpan("t4", "", "", "g", "LLM", 5)
	delete(noID, "spanId")
	tests := []struct {
		name, line string
		want       []string
		wantErr    []string
	}{
		{"a batch of two whole traces", otlpLine(append(rag, chat)...), []string{"t1|q1|a1|c1+c2||7", "t2|q2|a2|||7"}, nil},
		{"a JSON Lines record", `{"user_input": "q", "response": "a"}`, []string{"|q|a|||7"}, nil},
		{"a trace not whole in its line", otlpLine(chat, orphan), []string{"t2|q2|a2|||7"},
			[]string{"log.jsonl:7: trace t3: the parent 04 of span \"g\" 05 is not in this line", "groupbytrace"}},
		{"a span without its id", otlpLine(chat, noID), []string{"t2|q2|a2|||7"}, []string{"log.jsonl:7:", "has no spanId"}},
		{"a batch of spans without a request", otlpLine(otlpSpan("t5", "01", "", "health", "CHAIN", 0)), nil, nil},
	}
	d, err := NewLineDecoder(Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			samples, err := d.DecodeLine("log.jsonl", 7, []byte(tt.line))
			got := loaded(&Loaded{Samples: samples})
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("samples %q, want %q", got, tt.want)
			}
			if (err != nil) != (tt.wantErr != nil) {
				t.Fatalf("error %v", err)
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\nlacks %q", err, w)
				}
			}
		})
	}
}
