package dataset

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

func TestColumnar(t *testing.T) {
	tests := []struct {
		name, file, in string
		opt            Options
		want           []string // question|answer|contexts|reference|line per sample
		skipped        int
	}{
		{
			name: "ragas 0.1 to_dict, pretty", file: "d.json",
			in:   "{\n \"question\": [\"q1\", \"q2\"],\n \"answer\": [\"a1\", \"a2\"],\n \"contexts\": [[\"c1\"], []],\n \"ground_truth\": [\"g1\", null]\n}\n",
			want: []string{"q1|a1|[c1]|g1|1", "q2|a2|[]||2"},
		},
		{
			name: "ragas 0.2 names, one line, .jsonl name", file: "d.jsonl",
			in:   `{"user_input":["q1"],"response":["a1"],"retrieved_contexts":[["c1","c2"]],"reference":["r1"]}`,
			want: []string{"q1|a1|[c1 c2]|r1|1"},
		},
		{
			name: "no extension sniffed", file: "d",
			in:   `{"question":["q1"],"answer":["a1"]}`,
			want: []string{"q1|a1|[]||1"},
		},
		{
			name: "--map and extra lists", file: "d.json",
			in:   `{"q":["q1","q2"],"a":["a1","a2"],"meta":[1,2],"name":"x"}`,
			opt:  Options{Map: map[string]string{"question": "q", "answer": "a"}},
			want: []string{"q1|a1|[]||1", "q2|a2|[]||2"},
		},
		{
			name: "skip invalid sample", file: "d.json",
			in:   `{"question":["q1",""],"answer":["a1","a2"]}`,
			opt:  Options{SkipInvalid: true},
			want: []string{"q1|a1|[]||1"}, skipped: 1,
		},
		{
			name: "sample over the limit skipped", file: "d.json",
			in:   `{"question":["q1","q2"],"answer":["a1","` + strings.Repeat("x", 50) + `"],"contexts":[["c"],["` + strings.Repeat("y", 30) + `"]]}`,
			opt:  Options{SkipInvalid: true, MaxRecordBytes: 60},
			want: []string{"q1|a1|[c]||1"}, skipped: 1,
		},
		{
			name: "entry over the limit skipped", file: "d.json",
			in:   `{"question":["q1","q2"],"answer":["a1","` + strings.Repeat("x", 100) + `"]}`,
			opt:  Options{SkipInvalid: true, MaxRecordBytes: 60},
			want: []string{"q1|a1|[]||1"}, skipped: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streamsLikeLoad(t, tt.file, []byte(tt.in), tt.opt)
			l, err := Read(tt.file, strings.NewReader(tt.in), tt.opt)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if l.Format != FormatJSON {
				t.Errorf("Format = %q, want json", l.Format)
			}
			var got []string
			for _, s := range l.Samples {
				got = append(got, fmt.Sprintf("%s|%s|%v|%s|%d", s.Question, s.Answer, s.Contexts, s.Reference, s.Line))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("samples:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if len(l.Skipped) != tt.skipped {
				t.Errorf("skipped %+v, want %d", l.Skipped, tt.skipped)
			}
			for _, s := range l.Skipped {
				if s.Unit != read.UnitSample || s.Line != 2 {
					t.Errorf("skip %+v, want sample 2", s)
				}
			}
		})
	}
}

func TestColumnarAndLayoutErrors(t *testing.T) {
	long := "a" + strings.Repeat("k", 60)
	var many []string
	for i := range 25 {
		many = append(many, fmt.Sprintf(`"k%02d":1`, i))
	}
	tests := []struct {
		name, file, in string
		opt            Options
		want           []string
		absent         []string
	}{
		{
			name: "lists differ in length", file: "d.json",
			in:   `{"question":["q1","q2","q3"],"answer":["a1","a2"],"contexts":[[],[],[]]}`,
			want: []string{"d.json: the lists of the column-oriented object differ in length (answer has 2, contexts has 3, question has 3)"},
		},
		{
			name: "bad entry names sample and field", file: "d.json",
			in:   `{"question":["q1","q2"],"answer":["a1",7]}`,
			want: []string{`d.json: sample 2 (index 1): field "answer": key "answer" must be a string`, "--skip-invalid"},
		},
		{
			name: "sample over the limit", file: "d.json",
			in:   `{"question":["q1","q2"],"answer":["a1","` + strings.Repeat("x", 100) + `"]}`,
			opt:  Options{MaxRecordBytes: 60},
			want: []string{`d.json: sample 2 (index 1): field "answer": the record is 106 bytes (106 bytes; list "answer" holds 102 bytes), over the limit of 60 bytes`},
		},
		{
			name: "answer list missing", file: "d.json",
			in:   `{"question":["q1"],"reply":["a1"]}`,
			want: []string{`d.json: field "answer": missing — no list named response or answer (lists: question, reply)`, "--map answer=<list>"},
		},
		{
			name: "object with no known key", file: "d.json",
			in:     "{\n\"" + long + "\": [1],\n\"bad\\u0007key\": 2, " + strings.Join(many, ",") + "}",
			want:   []string{"d.json: matches no known dataset layout — tried JSON Lines records", "a JSON array of records", `{"samples": [...]}`, "column-oriented object", "CSV", "found keys: a" + strings.Repeat("k", 39) + "…, bad?key, k00,", "and 7 more", "--map question=<key>,answer=<key>"},
			absent: []string{"\a", "k24"},
		},
		{
			name: "array of records with unknown fields", file: "d.json",
			in:   `[{"prompt":"q","completion":"a"}]`,
			want: []string{"d.json: matches no known dataset layout", "found keys: completion, prompt", "--map question=<key>"},
		},
		{
			name: "jsonl with unknown fields", file: "d.jsonl",
			in:   "{\"prompt\":\"q\",\"completion\":\"a\"}\n",
			want: []string{"d.jsonl: matches no known dataset layout", "found keys: completion, prompt"},
		},
		{
			name: "jsonl with unknown fields, skip invalid", file: "d.jsonl",
			in:   "{\"prompt\":\"q\",\"completion\":\"a\"}\n{\"x\":1}\n",
			opt:  Options{SkipInvalid: true},
			want: []string{"d.jsonl: matches no known dataset layout", "found keys: completion, prompt"},
		},
		{
			name: "csv without known columns", file: "d.csv",
			in:   "prompt,completion\nq,a\n",
			want: []string{"d.csv: row 1: matches no known dataset layout", "found columns: completion, prompt", "--map question=<column>,answer=<column>"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streamsLikeLoad(t, tt.file, []byte(tt.in), tt.opt)
			_, err := Read(tt.file, strings.NewReader(tt.in), tt.opt)
			if err == nil {
				t.Fatal("Read succeeded")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\ndoes not contain %q", err, w)
				}
			}
			for _, w := range tt.absent {
				if strings.Contains(err.Error(), w) {
					t.Errorf("error %q contains %q", err, w)
				}
			}
		})
	}
}
