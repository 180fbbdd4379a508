package dataset

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

func TestReadYAML(t *testing.T) {
	tests := []readCase{
		{
			name: "bare list of promptfoo test cases, description is the id", file: "tests.yaml",
			in: "# RAG cases\n" +
				"- description: taxi after 22:00\n" +
				"  vars:\n" +
				"    query: Can I expense a taxi after 22:00?\n" +
				"    context:\n" +
				"      - Taxis are reimbursed for trips that end after 22:00.\n" +
				"      - ''\n" +
				"    answer: Yes, they are.\n" +
				"    ground_truth: 'Yes.'\n" +
				"  assert:\n" +
				"    - type: context-faithfulness\n" +
				"- vars:\n" +
				"    question: Is parking reimbursed?\n" +
				"    context: Parking is not reimbursed.\n" +
				"    answer: |\n" +
				"      No.\n",
			format: FormatYAML,
			want: []eval.Sample{
				smp(2, "taxi after 22:00", "Can I expense a taxi after 22:00?", "Yes, they are.", []string{"Taxis are reimbursed for trips that end after 22:00."}, "Yes."),
				smp(12, "", "Is parking reimbursed?", "No.\n", []string{"Parking is not reimbursed."}, ""),
			},
		},
		{
			name: "bare list of RAGAS rows (.yml), number id keeps its spelling", file: "rows.yml",
			in: "- id: 0012\n  user_input: q1\n  response: a1\n  retrieved_contexts: [c1, c2]\n  reference: r1\n" +
				"- {id: 7, question: q2, answer: a2, contexts: [c3], ground_truths: [g1, g2]}\n",
			format: FormatYAML,
			want: []eval.Sample{
				smp(1, "0012", "q1", "a1", []string{"c1", "c2"}, "r1"),
				smp(6, "7", "q2", "a2", []string{"c3"}, "g1\ng2"),
			},
		},
		{
			name: "tests: wrapper in YAML, top-level fields of a case, id beats description", file: "suite.yaml",
			in: "description: my suite\nprompts: ['{{query}}']\ntests:\n" +
				"  - description: first\n    id: case-1\n    vars: {query: q1}\n    answer: a1\n" +
				"  - description: second\n    vars: {query: q2, answer: a2}\n",
			format: FormatYAML,
			want:   []eval.Sample{smp(4, "case-1", "q1", "a1", nil, ""), smp(8, "second", "q2", "a2", nil, "")},
		},
		{
			name: "tests: wrapper in JSON", file: "suite.json",
			in:     `{"description": "s", "tests": [{"description": "d1", "vars": {"query": "q1", "answer": "a1", "context": ["c1"]}}, {"vars": {"query": "q2", "answer": "a2"}}]}`,
			format: FormatJSON,
			want:   []eval.Sample{smp(1, "d1", "q1", "a1", []string{"c1"}, ""), smp(2, "", "q2", "a2", nil, "")},
		},
		{
			name: "tests: wrapper in JSON, pretty, in a file without extension", file: "suite",
			in:     "{\n  \"tests\": [\n    {\"vars\": {\"query\": \"q1\", \"answer\": \"a1\"}}\n  ]\n}\n",
			format: FormatJSON,
			want:   []eval.Sample{smp(1, "", "q1", "a1", nil, "")},
		},
		{
			name: "defaultTest vars fill in what a case lacks (YAML)", file: "promptfooconfig.yaml",
			in: "defaultTest:\n  vars:\n    context: [the shared policy]\n    answer: default answer\n" +
				"tests:\n  - vars: {query: q1}\n  - vars: {query: q2, answer: own answer, context: own chunk}\n",
			format: FormatYAML,
			want:   []eval.Sample{smp(6, "", "q1", "default answer", []string{"the shared policy"}, ""), smp(7, "", "q2", "own answer", []string{"own chunk"}, "")},
		},
		{
			name: "defaultTest before tests (JSON)", file: "promptfooconfig.json",
			in:     `{"defaultTest": {"vars": {"ground_truth": "g"}}, "tests": [{"vars": {"query": "q", "answer": "a"}}]}`,
			format: FormatJSON,
			want:   []eval.Sample{smp(1, "", "q", "a", nil, "g")},
		},
		{
			name: "anchors, aliases and merge keys", file: "tests.yaml",
			in: "- vars: &base\n    context: [shared chunk]\n    answer: a\n    query: q1\n" +
				"- vars:\n    <<: *base\n    query: q2\n" +
				"- vars: *base\n  description: third\n",
			format: FormatYAML,
			want: []eval.Sample{
				smp(1, "", "q1", "a", []string{"shared chunk"}, ""),
				smp(5, "", "q2", "a", []string{"shared chunk"}, ""),
				smp(8, "third", "q1", "a", []string{"shared chunk"}, ""),
			},
		},
		{
			name: "--map on a YAML file, dotted into vars", file: "tests.yaml",
			in:     "- vars: {prompt: q1, gold: g1}\n  output: a1\n",
			opt:    Options{Map: map[string]string{"question": "vars.prompt", "answer": "output", "reference": "gold"}},
			format: FormatYAML,
			want:   []eval.Sample{smp(1, "", "q1", "a1", nil, "g1")},
		},
		{
			name: "samples: list", file: "d.yaml",
			in:     "name: x\nsamples:\n  - question: q\n    answer: a\n",
			format: FormatYAML,
			want:   []eval.Sample{smp(3, "", "q", "a", nil, "")},
		},
		{
			name: "column-oriented mapping of lists", file: "d.yaml",
			in:     "question: [q1, q2]\nanswer:\n  - a1\n  - a2\ncontexts: [[c1], []]\n",
			format: FormatYAML,
			want:   []eval.Sample{smp(1, "", "q1", "a1", []string{"c1"}, ""), smp(2, "", "q2", "a2", nil, "")},
		},
		{
			name: "sniffed by content: a list item", file: "tests",
			in:     "\n# comment\n- vars:\n    query: q\n    answer: a\n",
			format: FormatYAML,
			want:   []eval.Sample{smp(3, "", "q", "a", nil, "")},
		},
		{
			name: "sniffed by content: a document start, BOM and CRLF", file: "config.txt",
			in:     "\xEF\xBB\xBF---\r\ntests:\r\n  - vars:\r\n      query: 问题\r\n      answer: 回答\r\n",
			format: FormatYAML,
			want:   []eval.Sample{smp(3, "", "问题", "回答", nil, "")},
		},
		{
			name: "sniffed by content: key: value", file: "config",
			in:     "description: rag\ntests:\n- vars: {query: q, answer: a}\n",
			format: FormatYAML,
			want:   []eval.Sample{smp(3, "", "q", "a", nil, "")},
		},
		{
			name: "explicit --format yaml", file: "d.txt", opt: Options{Format: "yml"},
			in:     "- question: q\n  answer: a\n",
			format: FormatYAML,
			want:   []eval.Sample{smp(1, "", "q", "a", nil, "")},
		},
		{
			name: "hostile text passes through unchanged", file: "d.yaml",
			in:     "- question: \"q\\u202e\\x1b[31m\"\n  answer: \"a\\u200b\"\n",
			format: FormatYAML,
			want:   []eval.Sample{smp(1, "", "q\u202e\x1b[31m", "a\u200b", nil, "")},
		},
	}
	checkReads(t, tests)
}

func TestReadYAMLErrors(t *testing.T) {
	tests := []readErrCase{
		{
			name: "bad indentation names the YAML line", file: "tests.yaml",
			in:   "- vars:\n    query: q\n    answer: a\n- vars:\n    query: q2\n   answer: x\n",
			line: 4, want: []string{"tests.yaml:4: invalid YAML: did not find expected key in the block that starts on this line", "indentation", "fix the file"},
		},
		{
			name: "unclosed quote", file: "tests.yaml", in: "- question: \"q\n  answer: a\n",
			line: 3, want: []string{"tests.yaml:3: invalid YAML: found unexpected end of stream"},
		},
		{
			name: "a tab for indentation", file: "d.yaml", in: "- question: q\n\tanswer: a\n",
			line: 2, want: []string{"d.yaml:2: invalid YAML", "tab"},
		},
		{
			name: "missing answer in a test case lists its vars", file: "tests.yaml",
			in:   "- vars:\n    query: q\n    reply: a\n",
			line: 1, field: "answer", skippable: true,
			want: []string{`tests.yaml:1: field "answer": missing — no key named response or answer (keys: vars, vars.query, vars.reply)`, "--map answer=<key>"},
		},
		{
			name: "an answer that YAML reads as a number", file: "tests.yaml",
			in:   "- vars: {query: q, answer: ok}\n- vars: {query: q, answer: 2024}\n",
			line: 2, field: "answer", skippable: true, want: []string{`tests.yaml:2: field "answer": key "vars.answer" must be a string, got a number`, "quote the value"},
		},
		{
			name: "null answer", file: "tests.yaml", in: "- question: q\n  answer: ~\n",
			line: 1, field: "answer", skippable: true, want: []string{`is null (key "answer")`},
		},
		{
			name: "a list item that is not a mapping", file: "tests.yaml", in: "- question: q\n  answer: a\n- just text\n",
			line: 3, skippable: true, want: []string{"tests.yaml:3: is a string, not a mapping", "vars:"},
		},
		{
			name: "a key twice in a record", file: "tests.yaml", in: "- question: q\n  answer: a\n  answer: b\n",
			line: 1, skippable: true, want: []string{`the key "answer" at line 3 repeats the one at line 2`},
		},
		{
			name: "duplicate description as id", file: "tests.yaml",
			in:   "- description: same\n  vars: {query: q1, answer: a}\n- description: same\n  vars: {query: q2, answer: a}\n",
			line: 3, field: "id", skippable: true,
			want: []string{`duplicate id "same", first used at line 1`, `the id is the test's "description"; make the descriptions unique`},
		},
		{
			name: "a var holding a file reference", file: "tests.yaml",
			in:   "- vars:\n    query: q\n    answer: a\n    context: file://docs/policy.txt\n",
			line: 1, field: "contexts", skippable: true,
			want: []string{`key "vars.context" is a file reference ("file://docs/policy.txt")`, "put the text itself"},
		},
		{
			name: "one record, not a list", file: "case.yaml", in: "question: q\nanswer: a\n",
			line: 1, want: []string{"case.yaml:1: the file holds one record (a mapping with question), not a list", `put "- " before`},
		},
		{
			name: "a scalar file", file: "d.yaml", in: "just some words\n",
			line: 1, want: []string{"the file holds a string", "tests:"},
		},
		{
			name: "two documents", file: "d.yaml", in: "- question: q\n  answer: a\n---\n- question: q2\n  answer: a2\n",
			line: 3, want: []string{"d.yaml:3: a second YAML document starts here", `remove the "---"`},
		},
		{
			name: "tests: holding a mapping", file: "promptfooconfig.yaml", in: "prompts: [x]\ntests:\n  vars: {query: q}\n",
			line: 3, want: []string{"promptfooconfig.yaml:3: tests: holds a mapping", "file://"},
		},
		{
			name: "both tests and samples", file: "d.yaml", in: "tests: []\nsamples: []\n",
			line: 2, want: []string{"has both tests: (line 1) and samples: (line 2)"},
		},
		{
			name: "records with no known key", file: "d.yaml", in: "- prompt: p\n  output: o\n",
			want: []string{"d.yaml: matches no known dataset layout", "YAML (a list of records", "found keys: output, prompt", "--map question=<key>"},
		},
		{
			name: "a mapping of lists with no known key", file: "d.yaml", in: "prompts: [p1]\noutputs: [o1]\n",
			want: []string{"matches no known dataset layout", "found keys: outputs, prompts"},
		},
		{
			name: "invalid UTF-8 names the line", file: "d.yaml", in: "- question: q\n  answer: caf\xe9\n",
			line: 2, want: []string{"d.yaml:2: the file is not valid UTF-8 (byte 0xE9", "iconv"},
		},
		{name: "only comments", file: "d.yaml", in: "# nothing yet\n", want: []string{"d.yaml: no samples"}},
		{name: "an empty tests list", file: "promptfooconfig.yaml", in: "tests:\n", want: []string{"no samples"}},
		{
			name: "defaultTest after tests in JSON", file: "c.json",
			in:   `{"tests": [{"vars": {"query": "q", "answer": "a"}}], "defaultTest": {"vars": {}}}`,
			want: []string{`"defaultTest" (line 1) comes after "tests" — move it above "tests"`},
		},
		{
			name: "defaultTest vars that are not a mapping", file: "c.yaml", in: "defaultTest:\n  vars: file://vars.yaml\ntests: []\n",
			line: 1, want: []string{"defaultTest.vars is a string", "inline"},
		},
		{
			name: "a reference that is not a local file", file: "c.yaml", in: "tests: huggingface://datasets/x/y\n",
			line: 1, want: []string{`c.yaml:1: tests reference "huggingface://datasets/x/y": huggingface:// is not a local file`},
		},
		{
			name: "tests: a number", file: "c.yaml", in: "tests: 5\n",
			line: 1, want: []string{"tests: holds a number"},
		},
		{
			name: "\"tests\" a number in JSON", file: "c.json", in: `{"tests": 5}`,
			want: []string{`"tests" holds a number`},
		},
	}
	checkReadErrors(t, tests)
}

func TestYAMLSkipInvalid(t *testing.T) {
	in := "- question: q1\n  answer: a\n- 42\n- question: q3\n- question: q4\n  answer: a\n"
	l, err := Read("d.yaml", strings.NewReader(in), Options{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	var q []string
	for _, s := range l.Samples {
		q = append(q, s.Question)
	}
	if !reflect.DeepEqual(q, []string{"q1", "q4"}) {
		t.Errorf("loaded %q, want q1, q4", q)
	}
	want := []Skip{{Line: 3, Unit: read.UnitLine}, {Line: 4, Field: "answer", Unit: read.UnitLine}}
	if len(l.Skipped) != len(want) {
		t.Fatalf("skipped %+v, want %+v", l.Skipped, want)
	}
	for i, s := range l.Skipped {
		if s.Line != want[i].Line || s.Field != want[i].Field || s.Unit != want[i].Unit || s.Reason == "" || s.File != "" {
			t.Errorf("skip %d = %+v, want %+v with a reason and no file", i, s, want[i])
		}
	}
}

func TestYAMLRecordLimit(t *testing.T) {
	const limit = 1000
	big := strings.Repeat("x", 1200)
	tests := []struct {
		name, in string
		line     int
		field    string
		want     []string
	}{
		{
			name: "a record over the limit names its largest var, measured as the JSON it stands for",
			in:   "- vars: {query: q1, answer: a}\n- vars:\n    query: q2\n    answer: a\n    context: " + big + "\n- vars: {query: q3, answer: a}\n",
			line: 2, field: "contexts",
			want: []string{`d.yaml:2: field "contexts": the record is 1249 bytes (1.2 KiB; key "vars.context" holds 1.2 KiB), over the limit of 1000 bytes per record — raise the limit with --max-record-bytes`},
		},
		{
			name: "a record that aliases grow over the limit",
			in:   "- vars: {query: q1, answer: &a " + strings.Repeat("y", 400) + "}\n- vars: {query: q2, answer: a, context: [*a, *a, *a]}\n",
			line: 2,
			want: []string{"d.yaml:2: the record grows over the limit of 1000 bytes per record once read", "aliases"},
		},
		{
			name: "an alias bomb stops at the limit",
			in: "- &a [x, x, x, x, x, x, x, x, x, x]\n- &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n- &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
				"- &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n- question: q\n  answer: a\n  contexts: [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
			line: 1, want: []string{"d.yaml:1: is a list, not a mapping"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read("d.yaml", strings.NewReader(tt.in), Options{MaxRecordBytes: limit})
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want a *dataset.Error", err)
			}
			if e.Line != tt.line || e.Field != tt.field || !e.Skippable {
				t.Errorf("error at line %d field %q skippable %v, want line %d field %q skippable\n%v", e.Line, e.Field, e.Skippable, tt.line, tt.field, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\n does not contain %q", err, w)
				}
			}
			l, err := Read("d.yaml", strings.NewReader(tt.in), Options{MaxRecordBytes: limit, SkipInvalid: true})
			if err != nil {
				return // every record was bad: the alias bomb
			}
			for _, s := range l.Samples {
				if s.Line == tt.line {
					t.Errorf("the record over the limit was loaded under --skip-invalid: %+v", s)
				}
			}
			if len(l.Skipped) == 0 || l.Skipped[0].Line != tt.line {
				t.Errorf("skipped %+v, want line %d first", l.Skipped, tt.line)
			}
		})
	}
}

func TestYAMLBombUnderSkipInvalid(t *testing.T) {
	in := "- &a [x, x, x, x, x, x, x, x, x, x]\n- &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n- &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
		"- question: q\n  answer: a\n  contexts: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n- question: ok\n  answer: a\n"
	l, err := Read("d.yaml", strings.NewReader(in), Options{MaxRecordBytes: 4096, SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Samples) != 1 || l.Samples[0].Question != "ok" {
		t.Fatalf("samples %+v, want only the last record", l.Samples)
	}
	if last := l.Skipped[len(l.Skipped)-1]; last.Line != 4 || !strings.Contains(last.Reason, "grows over the limit") {
		t.Errorf("skipped %+v, want the aliased record at line 4 refused as too big", l.Skipped)
	}
}

func TestYAMLFileLimit(t *testing.T) {
	in := "- question: q\n  answer: \"" + strings.Repeat("a", MaxYAMLBytes) + "\"\n"
	_, err := Read("big.yaml", strings.NewReader(in), Options{})
	if err == nil || !strings.Contains(err.Error(), "big.yaml: the YAML file is over 32 MiB") || !strings.Contains(err.Error(), "JSON Lines") {
		t.Fatalf("error %v, want the YAML size limit", err)
	}
	// A record limit above the YAML limit raises it: one record may be that big.
	data, err := readWhole("big.yaml", strings.NewReader(in), 64<<20)
	if err != nil || len(data) != len(in) {
		t.Fatalf("with a 64 MiB record limit: %d bytes, %v", len(data), err)
	}
}

func TestLooksYAML(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"- vars:\n", true},
		{"-\n  question: q\n", true},
		{"---\n", true},
		{"%YAML 1.2\n---\n", true},
		{"# c\n\ntests:\n", true},
		{"description: a suite\n", true},
		{"question,answer\nq,a\n", false},
		{"question;answer\n", false},
		{"question\tanswer\n", false},
		{"time:start,answer\n", false},
		{"\"a: b\",c\n", false},
		{"# only a comment\n", false},
		{"-1,2\n", false},
	}
	for _, tt := range tests {
		if got := looksYAML([]byte(tt.in)); got != tt.want {
			t.Errorf("looksYAML(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
