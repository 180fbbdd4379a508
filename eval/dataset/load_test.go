package dataset

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// s builds an expected sample; Index is filled in by position.
func smp(line int, id, q, a string, ctx []string, ref string) eval.Sample {
	return eval.Sample{Line: line, ID: id, Question: q, Answer: a, Contexts: ctx, Reference: ref}
}

func TestReadFormats(t *testing.T) {
	tests := []readCase{
		{
			name: "ragas 0.2 jsonl", file: "d.jsonl",
			in:     `{"user_input":"q1","response":"a1","retrieved_contexts":["c1","c2"],"reference":"r1"}` + "\n" + `{"user_input":"q2","response":"a2"}`,
			format: FormatJSONL,
			want:   []eval.Sample{smp(1, "", "q1", "a1", []string{"c1", "c2"}, "r1"), smp(2, "", "q2", "a2", nil, "")},
		},
		{
			name: "ragas 0.1 json array, ground_truths joined", file: "d.json",
			in:     "[\n {\"question\":\"q\",\"answer\":\"a\",\"contexts\":[\"c\"],\"ground_truths\":[\"g1\",\"\",\"g2\"]}\n]",
			format: FormatJSON,
			want:   []eval.Sample{smp(1, "", "q", "a", []string{"c"}, "g1\ng2")},
		},
		{
			name: "samples object with other keys", file: "d.json",
			in:     `{"name":"x","samples":[{"question":"q","answer":"a","ground_truth":"g"},{"question":"q2","answer":"a2"}],"meta":{"v":1}}`,
			format: FormatJSON,
			want:   []eval.Sample{smp(1, "", "q", "a", nil, "g"), smp(2, "", "q2", "a2", nil, "")},
		},
		{
			name: "promptfoo vars, single-string context is one chunk", file: "d.json",
			in:     `[{"vars":{"query":"q","context":"the policy","answer":"a","ground_truth":"g"},"assert":[]}]`,
			format: FormatJSON,
			want:   []eval.Sample{smp(1, "", "q", "a", []string{"the policy"}, "g")},
		},
		{
			name: "top level wins over vars; first name wins", file: "d.jsonl",
			in:     `{"question":"old","user_input":"new","answer":"a","response":"r","vars":{"query":"v"}}`,
			format: FormatJSONL,
			want:   []eval.Sample{smp(1, "", "new", "r", nil, "")},
		},
		{
			name: "id number keeps its spelling, blank chunks dropped, null reference is none", file: "d.jsonl",
			in:     `{"id":12,"question":"q","answer":"a","contexts":["", "c1", "  ", null, "c2"],"reference":null}` + "\n" + `{"id":"x-1","question":"q","answer":"a","contexts":"","reference":"  "}`,
			format: FormatJSONL,
			want:   []eval.Sample{smp(1, "12", "q", "a", []string{"c1", "c2"}, ""), smp(2, "x-1", "q", "a", nil, "")},
		},
		{
			name: "empty answer is valid input", file: "d.jsonl",
			in:     `{"question":"q","answer":""}`,
			format: FormatJSONL,
			want:   []eval.Sample{smp(1, "", "q", "", nil, "")},
		},
		{
			name: "jsonl blank lines skipped, CRLF, line numbers are physical", file: "d.jsonl",
			in:     "\r\n" + `{"question":"q1","answer":"a1"}` + "\r\n\r\n" + `{"question":"q2","answer":"a2\r\n"}` + "\r\n",
			format: FormatJSONL,
			want:   []eval.Sample{smp(2, "", "q1", "a1", nil, ""), smp(4, "", "q2", "a2\r\n", nil, "")},
		},
		{
			name: "utf-8 BOM stripped (jsonl)", file: "d.jsonl",
			in:     "\xEF\xBB\xBF" + `{"question":"问题","answer":"回答"}`,
			format: FormatJSONL,
			want:   []eval.Sample{smp(1, "", "问题", "回答", nil, "")},
		},
		{
			name: "utf-8 BOM stripped (csv), CRLF", file: "d.csv",
			in:     "\xEF\xBB\xBFquestion,answer\r\nq1,a1\r\n\"q,2\",\"a\r\n2\"\r\n",
			format: FormatCSV,
			want:   []eval.Sample{smp(2, "", "q1", "a1", nil, ""), smp(3, "", "q,2", "a\n2", nil, "")},
		},
		{
			name: "csv contexts: JSON array, Python list, plain text, bracketed text", file: "d.csv",
			in: "id,user_input,response,retrieved_contexts,reference\n" +
				`1,q,a,"[""c1"", """", ""c2""]",r` + "\n" +
				`2,q,a,"['it\'s', ""say \""hi\""""]",` + "\n" +
				`3,q,a,just one chunk,` + "\n" +
				`4,q,a,[1] Article one says so,` + "\n" +
				`5,q,a,,"[""g1"",""g2""]"` + "\n",
			format: FormatCSV,
			want: []eval.Sample{
				smp(2, "1", "q", "a", []string{"c1", "c2"}, "r"),
				smp(3, "2", "q", "a", []string{"it's", `say "hi"`}, ""),
				smp(4, "3", "q", "a", []string{"just one chunk"}, ""),
				smp(5, "4", "q", "a", []string{"[1] Article one says so"}, ""),
				smp(6, "5", "q", "a", nil, "g1\ng2"),
			},
		},
		{
			name: "csv semicolons and case-insensitive header", file: "d.csv",
			in:     " Question ;Answer;Contexts\nq;a;c\n;;\n",
			format: FormatCSV,
			want:   []eval.Sample{smp(2, "", "q", "a", []string{"c"}, "")},
		},
		{
			name: "tsv by extension", file: "d.tsv",
			in:     "question\tanswer\nq, with comma\ta\n",
			format: FormatCSV,
			want:   []eval.Sample{smp(2, "", "q, with comma", "a", nil, "")},
		},
		{
			name: "--map overrides and claims its column", file: "d.csv",
			in:     "prompt,answer,generated\nq,gold,gen\n",
			opt:    Options{Map: map[string]string{"question": "prompt", "answer": "generated", "reference": "answer"}},
			format: FormatCSV,
			want:   []eval.Sample{smp(2, "", "q", "gen", nil, "gold")},
		},
		{
			name: "--map with a dotted path into JSON", file: "d.jsonl",
			in:     `{"input":{"text":"q"},"output":"a"}`,
			opt:    Options{Map: map[string]string{"question": "input.text", "answer": "output"}},
			format: FormatJSONL,
			want:   []eval.Sample{smp(1, "", "q", "a", nil, "")},
		},
		{
			name: "JSON Lines in a .json file (pandas/HF to_json)", file: "d.json",
			in:     `{"question":"q1","answer":"a1"}` + "\n" + `{"question":"q2","answer":"a2"}` + "\n",
			format: FormatJSONL,
			want:   []eval.Sample{smp(1, "", "q1", "a1", nil, ""), smp(2, "", "q2", "a2", nil, "")},
		},
		{
			name: "two exported files joined: a BOM on each", file: "d.jsonl",
			in:     "\uFEFF" + `{"question":"q1","answer":"a1"}` + "\r\n\uFEFF" + `{"question":"q2","answer":"a2"}` + "\r\n",
			format: FormatJSONL,
			want:   []eval.Sample{smp(1, "", "q1", "a1", nil, ""), smp(2, "", "q2", "a2", nil, "")},
		},
		{
			name: "an empty export joined in: a line that is a BOM alone", file: "d.jsonl",
			in:     `{"question":"q1","answer":"a1"}` + "\n\uFEFF\n" + `{"question":"q2","answer":"a2"}` + "\n",
			format: FormatJSONL,
			want:   []eval.Sample{smp(1, "", "q1", "a1", nil, ""), smp(3, "", "q2", "a2", nil, "")},
		},
		{
			name: "JSON array in a .jsonl file", file: "d.jsonl",
			in:     "[\r\n{\"question\":\"q\",\"answer\":\"a\"}\r\n]\r\n",
			format: FormatJSON,
			want:   []eval.Sample{smp(1, "", "q", "a", nil, "")},
		},
		{name: "sniff jsonl", file: "data.txt", in: `{"question":"q","answer":"a"}`, format: FormatJSONL, want: []eval.Sample{smp(1, "", "q", "a", nil, "")}},
		{name: "sniff pretty json object", file: "data", in: "{\n  \"samples\": [{\"question\":\"q\",\"answer\":\"a\"}]\n}", format: FormatJSON, want: []eval.Sample{smp(1, "", "q", "a", nil, "")}},
		{name: "sniff one-line samples object", file: "data", in: `{"samples": [{"question":"q","answer":"a"}]}`, format: FormatJSON, want: []eval.Sample{smp(1, "", "q", "a", nil, "")}},
		{name: "sniff csv", file: "export", in: "question,answer\nq,a\n", format: FormatCSV, want: []eval.Sample{smp(2, "", "q", "a", nil, "")}},
		{name: "explicit format beats extension", file: "d.txt", in: "question,answer\nq,a\n", opt: Options{Format: "CSV"}, format: FormatCSV, want: []eval.Sample{smp(2, "", "q", "a", nil, "")}},
	}
	checkReads(t, tests)
}

func TestReadErrors(t *testing.T) {
	tests := []readErrCase{
		{name: "empty file", file: "d.jsonl", in: "", want: []string{"d.jsonl: no samples", "JSON Lines", "CSV"}},
		{name: "whitespace only", file: "d.csv", in: "\r\n \n", want: []string{"no samples"}},
		{name: "empty array", file: "d.json", in: "[ ]", want: []string{"no samples"}},
		{name: "header only csv", file: "d.csv", in: "question,answer\n", want: []string{"no samples"}},
		{
			name: "csv without answer column", file: "d.csv", in: "question,reply\nq,a\n",
			line: 1, unit: read.UnitRow, field: "answer",
			want: []string{`d.csv: row 1: field "answer": missing`, "response or answer", "reply", "--map answer=<column>"},
		},
		{
			name: "csv --map names a missing column", file: "d.csv", in: "question,answer\nq,a\n",
			opt:  Options{Map: map[string]string{"reference": "gold"}},
			line: 1, unit: read.UnitRow, field: "reference",
			want: []string{`column "gold" named by --map reference=gold`, "answer, question", "fix --map"},
		},
		{
			name: "json --map names a key no record has", file: "d.jsonl", in: `{"question":"q","answer":"a"}`,
			opt:   Options{Map: map[string]string{"reference": "gold"}},
			field: "reference",
			want:  []string{`no record has the key "gold" named by --map reference=gold`, "answer, question"},
		},
		{
			name: "jsonl missing answer", file: "d.jsonl", in: "{\"question\":\"q\",\"answer\":\"a\"}\n{\"question\":\"q\",\"reply\":\"a\"}",
			line: 2, unit: read.UnitLine, field: "answer", skippable: true,
			want: []string{`d.jsonl:2: field "answer": missing — no key named response or answer (keys: question, reply)`, "--map answer=<key>"},
		},
		{
			name: "null answer", file: "d.jsonl", in: `{"question":"q","answer":null}`,
			line: 1, unit: read.UnitLine, field: "answer", skippable: true, want: []string{`is null (key "answer")`},
		},
		{
			name: "blank question", file: "d.jsonl", in: `{"question":"  ","answer":"a"}`,
			line: 1, field: "question", skippable: true, want: []string{"is empty"},
		},
		{
			name: "answer is a number", file: "d.jsonl", in: `{"question":"q","response":42}`,
			line: 1, field: "answer", skippable: true, want: []string{`key "response" must be a string, got a number`},
		},
		{
			name: "contexts is an object", file: "d.json", in: `[{"question":"q","answer":"a"},{"question":"q","answer":"a","contexts":{"a":1}}]`,
			line: 2, unit: read.UnitElement, field: "contexts", skippable: true,
			want: []string{`d.json: element 2: field "contexts": key "contexts" must be a list of strings (or one string), got an object`},
		},
		{
			name: "contexts item is a document object", file: "d.jsonl", in: `{"question":"q","answer":"a","contexts":["ok",{"page_content":"x"}]}`,
			line: 1, field: "contexts", skippable: true, want: []string{"item 2 of the list is an object", "page_content"},
		},
		{
			name: "id is a boolean", file: "d.jsonl", in: `{"id":true,"question":"q","answer":"a"}`,
			line: 1, field: "id", skippable: true, want: []string{"must be a string or a number, got a boolean"},
		},
		{
			name: "invalid utf-8 in jsonl", file: "d.jsonl", in: "{\"question\":\"q\",\"answer\":\"a\"}\n{\"question\":\"q\",\"answer\":\"caf\xe9\"}\n",
			line: 2, field: "answer", skippable: true, want: []string{"not valid UTF-8 (byte 0xE9 at offset 4)", "iconv"},
		},
		{
			name: "invalid utf-8 in a csv cell", file: "d.csv", in: "question,answer,contexts\nq,a,\"[\"\"ok\"\", \"\"\xc4\xe3\"\"]\"\n",
			line: 2, unit: read.UnitRow, field: "contexts", skippable: true, want: []string{`column "contexts" is not valid UTF-8`},
		},
		{
			name: "utf-16 file", file: "d.csv", in: "\xFF\xFEq\x00", want: []string{"UTF-16", "save it as UTF-8"},
		},
		{name: "json scalar", file: "d.json", in: `"hello"`, want: []string{"holds a string", `{"samples": [...]}`}},
		{name: "json number", file: "d.json", in: "42\n", want: []string{"holds a number"}},
		{
			name: "json object without samples", file: "d.json", in: "{\n  \"data\": [],\n  \"version\": 1\n}\n",
			want: []string{"matches no known dataset layout", `{"samples": [...]}`, "column-oriented", "found keys: data, version", "--map question=<key>"},
		},
		{name: "samples not a list", file: "d.json", in: `{"samples": {"a": 1}}`, want: []string{`"samples" holds an object`}},
		{
			name: "json syntax error gives the line", file: "d.json", in: "[\n{\"question\":\"q\",\"answer\":\"a\"},\n{\"question\":\"q\" \"answer\":\"a\"}\n]",
			line: 2, unit: read.UnitElement, want: []string{"invalid JSON at line 3"},
		},
		{name: "truncated json", file: "d.json", in: "[\n{\"question\":\"q\",\"answer\":\"a\"},\n", line: 2, unit: read.UnitElement, want: []string{"ends too early"}},
		{name: "data after the array", file: "d.json", in: "[]\n[]", want: []string{"unexpected data after the JSON value, at line 2"}},
		{
			name: "jsonl broken line", file: "d.jsonl", in: "{\"question\":\"q\",\"answer\":\"a\"}\n{\"question\":\"q\",\n",
			line: 2, skippable: true, want: []string{"d.jsonl:2: invalid JSON"},
		},
		{
			name: "jsonl line that is an array", file: "d.txt", opt: Options{Format: "jsonl"}, in: "[\n{\"question\":\"q\",\"answer\":\"a\"}\n]",
			line: 1, skippable: true, want: []string{"d.txt:1: is not valid JSON", "holding one JSON array: name it .json"},
		},
		{
			name: "jsonl line that is a string", file: "d.jsonl", in: "\"q\"\n",
			line: 1, skippable: true, want: []string{"d.jsonl:1: is a string, not an object"},
		},
		{
			name: "duplicate id", file: "d.jsonl", in: "{\"id\":1,\"question\":\"q\",\"answer\":\"a\"}\n{\"id\":\"1\",\"question\":\"q\",\"answer\":\"a\"}",
			line: 2, field: "id", skippable: true, want: []string{`duplicate id "1", first used at line 1`},
		},
		{
			name: "csv row with too few cells", file: "d.csv", in: "question,answer,reference\nq,a\n",
			line: 2, unit: read.UnitRow, skippable: true, want: []string{"has 2 cells but the header has 3"},
		},
		{name: "csv broken quote", file: "d.csv", in: "question,answer\nq,a \"b\" c\n", line: 2, unit: read.UnitRow, want: []string{"cannot parse CSV at line 2"}},
		{
			name: "csv duplicate column", file: "d.csv", in: "question,answer,Answer\nq,a,b\n",
			line: 1, unit: read.UnitRow, field: "answer", want: []string{`two columns named "answer" (columns 2 and 3)`},
		},
		{
			name: "json --map names a key a record lacks", file: "d.jsonl", in: `{"q":"q","answer":"a"}` + "\n" + `{"question":"q","answer":"a"}`,
			opt:  Options{Map: map[string]string{"question": "q"}},
			line: 2, field: "question", skippable: true,
			want: []string{`d.jsonl:2: field "question": missing — key "q" named by --map question=q is not there (keys: answer, question); fix --map`},
		},
		{
			name: "two fields mapped to one column", file: "d.csv", in: "text\nx\n",
			opt:  Options{Map: map[string]string{"question": "text", "answer": "text"}},
			want: []string{`fields "question" and "answer" both read column "text"`},
		},
		{name: "unknown format", file: "d.csv", opt: Options{Format: "xml"}, in: "x", want: []string{`--format: unknown format "xml"`}},
		{name: "unknown map field", file: "d.csv", opt: Options{Map: map[string]string{"answr": "x"}}, in: "x", want: []string{`unknown field "answr"`}},
		{
			name: "samples key hint in jsonl", file: "d.jsonl", opt: Options{Format: "jsonl"}, in: `{"v":1,"samples":[{"question":"q","answer":"a"}]}`,
			line: 1, field: "question", skippable: true, want: []string{`holding a "samples" list: name it .json`},
		},
	}
	checkReadErrors(t, tests)
}

func TestSkipInvalid(t *testing.T) {
	tests := []struct {
		name, file, in string
		wantQ          []string // questions of the loaded samples, in order
		wantSkip       []Skip
	}{
		{
			name: "jsonl", file: "d.jsonl",
			in: `{"question":"q1","answer":"a"}` + "\n" +
				`{"question":"q2","answer":"caf` + "\xe9" + `"}` + "\n" +
				`not json` + "\n" +
				`{"question":"q4","answer":"a"}` + "\n" +
				`{"question":"q5"}` + "\n",
			wantQ: []string{"q1", "q4"},
			wantSkip: []Skip{
				{Line: 2, Field: "answer", Unit: read.UnitLine},
				{Line: 3, Field: "", Unit: read.UnitLine},
				{Line: 5, Field: "answer", Unit: read.UnitLine},
			},
		},
		{
			name: "csv", file: "d.csv",
			in:       "question,answer,contexts\nq1,a,\nq2\n,a,\nq4,a,\"[1, 2]\"\nq5,a,c\n",
			wantQ:    []string{"q1", "q5"},
			wantSkip: []Skip{{Line: 3, Unit: read.UnitRow}, {Line: 4, Field: "question", Unit: read.UnitRow}, {Line: 5, Field: "contexts", Unit: read.UnitRow}},
		},
		{
			name: "json array", file: "d.json",
			in:       `[{"question":"q1","answer":"a"}, 7, {"question":"q3","answer":["x"]}, {"question":"q4","answer":"a"}]`,
			wantQ:    []string{"q1", "q4"},
			wantSkip: []Skip{{Line: 2, Unit: read.UnitElement}, {Line: 3, Field: "answer", Unit: read.UnitElement}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streamsLikeLoad(t, tt.file, []byte(tt.in), Options{SkipInvalid: true})
			l, err := Read(tt.file, strings.NewReader(tt.in), Options{SkipInvalid: true})
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			var q []string
			for i, s := range l.Samples {
				if s.Index != i {
					t.Errorf("sample %d has Index %d", i, s.Index)
				}
				q = append(q, s.Question)
			}
			if !reflect.DeepEqual(q, tt.wantQ) {
				t.Errorf("loaded %q, want %q", q, tt.wantQ)
			}
			if len(l.Skipped) != len(tt.wantSkip) {
				t.Fatalf("skipped %+v, want %+v", l.Skipped, tt.wantSkip)
			}
			for i, s := range l.Skipped {
				w := tt.wantSkip[i]
				if s.Line != w.Line || s.Field != w.Field || s.Unit != w.Unit || s.Reason == "" {
					t.Errorf("skip %d = %+v, want line %d field %q unit %q and a reason", i, s, w.Line, w.Field, w.Unit)
				}
				if e := l.SkipError(s).Error(); !strings.HasPrefix(e, tt.file) || strings.Contains(e, "--skip-invalid") {
					t.Errorf("SkipError = %q: want the file name and no --skip-invalid advice", e)
				}
			}
		})
	}
}

func TestSkipInvalidAllBad(t *testing.T) {
	in := "{\"question\":\"q\"}\n{\"answer\":\"a\"}\n"
	_, err := Read("d.jsonl", strings.NewReader(in), Options{SkipInvalid: true})
	if err == nil {
		t.Fatal("Read succeeded with every record invalid")
	}
	for _, w := range []string{"no valid samples", "all 2 records are invalid", `line 1: field "answer": missing`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not contain %q", err, w)
		}
	}
}

// A dataset none of whose samples has contexts is read, with a warning
// that names the columns we read them from and the file's own: most often
// a column named otherwise.
func TestNoContextsIsSaid(t *testing.T) {
	for _, tt := range []struct {
		name, file, in string
		opt            Options
		want           []string // in the warning; nil: no warning
	}{
		{"csv, a column named otherwise", "d.csv", "question,answer,retrieved_context\nq,a,c\n", Options{},
			[]string{"none of the 1 samples has retrieved contexts", "retrieved_contexts, contexts or context", "answer, question, retrieved_context", "--map contexts=<column>"}},
		{"jsonl, a key named otherwise", "d.jsonl", `{"question":"q","answer":"a","docs":["c"]}`, Options{},
			[]string{"answer, docs, question", "--map contexts=<column>"}},
		{"mapped, always empty", "d.csv", "question,answer,chunks\nq,a,\n", Options{Map: map[string]string{"contexts": "chunks"}},
			[]string{`"chunks" named by --map contexts= is empty in every record`}},
		{"one sample has them", "d.jsonl", `{"question":"q","answer":"a"}` + "\n" + `{"question":"q2","answer":"a","contexts":["c"]}`, Options{}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Read(tt.file, strings.NewReader(tt.in), tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == nil && l.NoContexts != "" {
				t.Fatalf("a warning: %s", l.NoContexts)
			}
			for _, w := range tt.want {
				if !strings.Contains(l.NoContexts, w) {
					t.Errorf("warning %q lacks %q", l.NoContexts, w)
				}
			}
		})
	}
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "data.jsonl", Line: 7, Unit: read.UnitLine, Field: "answer", Msg: "missing — add it"}, `data.jsonl:7: field "answer": missing — add it`},
		{Error{File: "data.csv", Line: 3, Unit: read.UnitRow, Msg: "bad"}, "data.csv: row 3: bad"},
		{Error{File: "data.json", Line: 2, Unit: read.UnitElement, Field: "id", Msg: "bad", Skippable: true}, `data.json: element 2: field "id": bad (or pass --skip-invalid to evaluate the other records)`},
		{Error{File: "data.json", Msg: "no samples"}, "data.json: no samples"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestParseMap(t *testing.T) {
	tests := []struct {
		in      string
		want    map[string]string
		wantErr string
	}{
		{in: "", want: nil},
		{in: "question=q_col,answer=resp", want: map[string]string{"question": "q_col", "answer": "resp"}},
		{in: " id = sample id , contexts=docs,", want: map[string]string{"id": "sample id", "contexts": "docs"}},
		{in: "reference=vars.gold", want: map[string]string{"reference": "vars.gold"}},
		{in: "answr=resp", wantErr: `unknown field "answr"`},
		{in: "question", wantErr: `"question" is not field=column`},
		{in: "question=", wantErr: "is not field=column"},
		{in: "question=a,question=b", wantErr: `field "question" is mapped twice`},
		{in: "question=text,answer=text", wantErr: `fields "question" and "answer" both read column "text"`},
	}
	for _, tt := range tests {
		got, err := ParseMap(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.HasPrefix(err.Error(), "--map: ") {
				t.Errorf("ParseMap(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseMap(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// readCase is a dataset that reads: its format and samples.
type readCase struct {
	name, file, in string
	opt            Options
	format         string
	want           []eval.Sample
}

func checkReads(t *testing.T, tests []readCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streamsLikeLoad(t, tt.file, []byte(tt.in), tt.opt)
			l, err := Read(tt.file, strings.NewReader(tt.in), tt.opt)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if l.Format != tt.format {
				t.Errorf("format = %q, want %q", l.Format, tt.format)
			}
			for i := range tt.want {
				tt.want[i].Index = i
			}
			if !reflect.DeepEqual(l.Samples, tt.want) {
				t.Errorf("samples:\n got %#v\nwant %#v", l.Samples, tt.want)
			}
			if len(l.Skipped) != 0 {
				t.Errorf("skipped %v, want none", l.Skipped)
			}
		})
	}
}

// readErrCase is a dataset that fails to read, and where and why.
type readErrCase struct {
	name, file, in string
	opt            Options
	line           int
	unit, field    string
	want           []string // substrings of the message
	skippable      bool
}

func checkReadErrors(t *testing.T, tests []readErrCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streamsLikeLoad(t, tt.file, []byte(tt.in), tt.opt)
			l, err := Read(tt.file, strings.NewReader(tt.in), tt.opt)
			if err == nil {
				t.Fatalf("Read succeeded with %d samples, want an error", len(l.Samples))
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not a *dataset.Error", err, err)
			}
			unit := tt.unit
			if unit == "" && tt.line > 0 {
				unit = e.Unit // checked through the message instead
			}
			if e.File != tt.file || e.Line != tt.line || e.Field != tt.field || (tt.line > 0 && e.Unit != unit) || e.Skippable != tt.skippable {
				t.Errorf("error location = {%q %d %q %q skippable=%v}, want {%q %d %q %q skippable=%v}\n%v",
					e.File, e.Line, e.Unit, e.Field, e.Skippable, tt.file, tt.line, unit, tt.field, tt.skippable, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\n does not contain %q", err, w)
				}
			}
			if e.Skippable && !strings.Contains(err.Error(), "--skip-invalid") {
				t.Errorf("skippable error %q does not mention --skip-invalid", err)
			}
		})
	}
}

// TestSpanSelectorsInMap: --map takes llm= and retriever= beside the
// fields, and a watched log, which has no spans, refuses them.
func TestSpanSelectorsInMap(t *testing.T) {
	m, err := ParseMap("llm=chat,retriever=search,question=app.q")
	if err != nil || m["llm"] != "chat" || m["retriever"] != "search" || m["question"] != "app.q" {
		t.Fatalf("ParseMap = %v, %v", m, err)
	}
	if _, err := ParseMap("span=x"); err == nil || !strings.Contains(err.Error(), "the spans llm, retriever") {
		t.Fatalf("unknown key: %v", err)
	}
	if _, err := NewLineDecoder(Options{Map: m}); err == nil || !strings.Contains(err.Error(), "--map llm= selects spans of a trace file") {
		t.Fatalf("NewLineDecoder: %v", err)
	}
}

// Read reads a dataset from r as Load reads a file; name names it in
// errors, picks the format by extension and anchors a promptfoo file's
// file:// references.
func Read(name string, r io.Reader, opt Options) (*Loaded, error) {
	src := &source{name: name, open: func() (io.Reader, func(), error) { return r, func() {}, nil }}
	return scan(src, opt, true)
}

// A followed log's line that is a BOM alone (an empty export joined in) is
// a blank line, as loading reads it.
func TestLineDecoderBOMAlone(t *testing.T) {
	d, err := NewLineDecoder(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Decode("app.jsonl", 2, []byte("\uFEFF\r\n")); err != ErrBlankLine {
		t.Fatalf("a BOM alone: %v", err)
	}
	if s, err := d.Decode("app.jsonl", 3, []byte("\uFEFF"+`{"question":"q","answer":"a"}`)); err != nil || s.Question != "q" {
		t.Fatalf("a BOM before a record: %+v %v", s, err)
	}
}
