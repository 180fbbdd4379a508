package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// parquetBytes writes rows as a Parquet file the way parquet-go lays out
// the Go type T: what pandas or Hugging Face datasets write for the same
// columns (STRING, optional STRING, LIST of STRING).
func parquetBytes[T any](t testing.TB, rows []T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[T](&buf)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type ragasRow struct {
	ID                int64     `parquet:"id"`
	UserInput         string    `parquet:"user_input"`
	Response          *string   `parquet:"response,optional"`
	RetrievedContexts []string  `parquet:"retrieved_contexts,list"`
	Reference         *string   `parquet:"reference,optional"`
	Embedding         []float32 `parquet:"embedding,list"` // a column no field uses
}

type ragasV01Row struct {
	Question    string   `parquet:"question"`
	Answer      string   `parquet:"answer"`
	Contexts    string   `parquet:"contexts"` // one chunk per row, as a string column
	GroundTruth []string `parquet:"ground_truths"`
}

type wrongTypeRow struct {
	Question string `parquet:"question"`
	Answer   int64  `parquet:"answer"`
}

type intListRow struct {
	Question string  `parquet:"question"`
	Answer   string  `parquet:"answer"`
	Contexts []int64 `parquet:"contexts,list"`
}

type unknownRow struct {
	Prompt string `parquet:"prompt"`
	Output string `parquet:"output"`
}

func str(s string) *string { return &s }

func TestReadParquet(t *testing.T) {
	ragas := parquetBytes(t, []ragasRow{
		{ID: 1, UserInput: "q1", Response: str("a1"), RetrievedContexts: []string{"c1", "", "c2"}, Reference: str("r1"), Embedding: []float32{0.5}},
		{ID: 2, UserInput: "q2", Response: str("a2"), Reference: nil},
	})
	v01 := parquetBytes(t, []ragasV01Row{{Question: "问题", Answer: "回答", Contexts: "the policy", GroundTruth: []string{"g1", "g2"}}})
	unknown := parquetBytes(t, []unknownRow{{Prompt: "q", Output: "a"}})
	tests := []struct {
		name, file string
		data       []byte
		opt        Options
		want       []eval.Sample
	}{
		{
			name: "RAGAS >= 0.2 columns, a list<string> contexts, a null reference", file: "d.parquet", data: ragas,
			want: []eval.Sample{smp(1, "1", "q1", "a1", []string{"c1", "c2"}, "r1"), smp(2, "2", "q2", "a2", nil, "")},
		},
		{
			name: "RAGAS 0.1 names, contexts a string column, repeated ground_truths", file: "d.parquet", data: v01,
			want: []eval.Sample{smp(1, "", "问题", "回答", []string{"the policy"}, "g1\ng2")},
		},
		{
			name: "sniffed by the PAR1 magic", file: "export", data: ragas[:],
			want: []eval.Sample{smp(1, "1", "q1", "a1", []string{"c1", "c2"}, "r1"), smp(2, "2", "q2", "a2", nil, "")},
		},
		{
			name: "--map", file: "d.parquet", data: unknown,
			opt:  Options{Map: map[string]string{"question": "prompt", "answer": "output"}},
			want: []eval.Sample{smp(1, "", "q", "a", nil, "")},
		},
		{
			name: "explicit --format parquet", file: "d.bin", data: unknown, opt: Options{Format: "parquet", Map: map[string]string{"question": "prompt", "answer": "output"}},
			want: []eval.Sample{smp(1, "", "q", "a", nil, "")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streamsLikeLoad(t, tt.file, tt.data, tt.opt)
			// Through ReadAt (a file) and without (a pipe, read into memory).
			for _, r := range []io.Reader{bytes.NewReader(tt.data), io.MultiReader(bytes.NewReader(tt.data))} {
				l, err := Read(tt.file, r, tt.opt)
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if l.Format != FormatParquet {
					t.Errorf("format %q, want parquet", l.Format)
				}
				for i := range tt.want {
					tt.want[i].Index = i
				}
				if !reflect.DeepEqual(l.Samples, tt.want) {
					t.Errorf("samples:\n got %#v\nwant %#v", l.Samples, tt.want)
				}
				if sum := sha256.Sum256(tt.data); l.SHA256 != hex.EncodeToString(sum[:]) {
					t.Errorf("SHA256 %s, want the file's %x", l.SHA256, sum)
				}
			}
		})
	}
}

func TestLoadParquetFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ragas.parquet")
	data := parquetBytes(t, []ragasRow{{ID: 1, UserInput: "q", Response: str("a"), RetrievedContexts: []string{"c"}}})
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Samples) != 1 || l.Samples[0].Contexts[0] != "c" {
		t.Fatalf("samples %+v", l.Samples)
	}
	if sum := sha256.Sum256(data); l.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("SHA256 %s, want %x", l.SHA256, sum)
	}
}

func TestReadParquetErrors(t *testing.T) {
	ragas := parquetBytes(t, []ragasRow{
		{ID: 1, UserInput: "q1", Response: str("a1")},
		{ID: 2, UserInput: "q2", Response: nil},
		{ID: 3, UserInput: "q3", Response: str(strings.Repeat("x", 3000)), RetrievedContexts: []string{strings.Repeat("c", 5000)}},
	})
	tests := []struct {
		name      string
		data      []byte
		opt       Options
		line      int
		field     string
		skippable bool
		want      []string
	}{
		{
			name: "a null answer", data: ragas,
			line: 2, field: "answer", skippable: true,
			want: []string{`d.parquet: row 2: field "answer": is null (key "response")`},
		},
		{
			name: "a column of the wrong type names it and its type", data: parquetBytes(t, []wrongTypeRow{{Question: "q", Answer: 1}}),
			field: "answer",
			want:  []string{`d.parquet: field "answer": column "answer" is of type INT64 — the answer must be a string column`, "astype(str)"},
		},
		{
			name: "a list of numbers for contexts", data: parquetBytes(t, []intListRow{{Question: "q", Answer: "a", Contexts: []int64{1}}}),
			field: "contexts",
			want:  []string{`column "contexts" is of type list<INT64>`, "list<string>"},
		},
		{
			name: "no known column", data: parquetBytes(t, []unknownRow{{Prompt: "q", Output: "a"}}),
			want: []string{"d.parquet: matches no known dataset layout", "Parquet", "found columns: output, prompt", "--map question=<column>"},
		},
		{
			name: "--map naming a missing column", data: parquetBytes(t, []unknownRow{{Prompt: "q", Output: "a"}}),
			opt:   Options{Map: map[string]string{"question": "prompt", "answer": "reply"}},
			field: "answer",
			want:  []string{`column "reply" named by --map answer=reply is not there (columns: output, prompt)`},
		},
		{
			name: "a truncated file", data: ragas[:len(ragas)/2],
			want: []string{"d.parquet: cannot read it as Parquet", "truncated"},
		},
		{
			name: "the magic and garbage", data: []byte("PAR1 this is not a parquet file at all PAR1"),
			want: []string{"d.parquet: cannot read it as Parquet"},
		},
		{
			name: "garbage with no magic", data: []byte("hello, world\n"),
			want: []string{"d.parquet: cannot read it as Parquet", "invalid magic"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			streamsLikeLoad(t, "d.parquet", tt.data, tt.opt)
			_, err := Read("d.parquet", bytes.NewReader(tt.data), tt.opt)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T), want a *dataset.Error", err, err)
			}
			if e.Line != tt.line || e.Field != tt.field || e.Skippable != tt.skippable || (e.Line > 0 && e.Unit != read.UnitRow) {
				t.Errorf("error at {%d %q %q skippable=%v}, want {%d row %q skippable=%v}\n%v", e.Line, e.Unit, e.Field, e.Skippable, tt.line, tt.field, tt.skippable, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\n does not contain %q", err, w)
				}
			}
		})
	}
}

func TestParquetSkipInvalid(t *testing.T) {
	data := parquetBytes(t, []ragasRow{
		{ID: 1, UserInput: "q1", Response: str("a1")},
		{ID: 2, UserInput: "q2", Response: nil},
		{ID: 3, UserInput: "q3", Response: str("a3"), RetrievedContexts: []string{strings.Repeat("c", 5000)}},
		{ID: 4, UserInput: "q4", Response: str("a4")},
	})
	l, err := Read("d.parquet", bytes.NewReader(data), Options{SkipInvalid: true, MaxRecordBytes: 4096})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range l.Samples {
		got = append(got, s.ID)
	}
	if !reflect.DeepEqual(got, []string{"1", "4"}) {
		t.Errorf("loaded ids %q, want 1 and 4", got)
	}
	if len(l.Skipped) != 2 || l.Skipped[0].Line != 2 || l.Skipped[0].Field != "answer" || l.Skipped[1].Line != 3 || l.Skipped[1].Field != "contexts" ||
		!strings.Contains(l.Skipped[1].Reason, `column "retrieved_contexts" holds 4.9 KiB), over the limit of 4 KiB per record`) {
		t.Errorf("skipped %+v", l.Skipped)
	}
}
