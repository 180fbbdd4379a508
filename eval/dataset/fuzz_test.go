package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// fuzzNames are the names inputs are read under, by kind. The YAML ones
// sit in a directory that does not exist, so that a file:// reference the
// fuzzer makes up resolves to nothing rather than to this package's files.
var fuzzNames = []string{"d.jsonl", "d.json", "d.csv", "d.tsv", "d.data", "/nonexistent-ragscope-fuzz/d.yaml", "d.parquet", "/nonexistent-ragscope-fuzz/data", "d.xlsx"}

// fuzzParquetSeeds are small Parquet files of the shapes users have.
func fuzzParquetSeeds(tb testing.TB) [][]byte {
	return [][]byte{
		parquetBytes(tb, []ragasRow{{ID: 1, UserInput: "q1", Response: str("a1"), RetrievedContexts: []string{"c1", ""}, Reference: str("r")}, {ID: 2, UserInput: "q2"}}),
		parquetBytes(tb, []ragasV01Row{{Question: "q", Answer: "a", Contexts: "c", GroundTruth: []string{"g"}}}),
	}
}

// FuzzLoad reads arbitrary bytes as each format, with and without
// --skip-invalid and with small record limits. It must never panic; an
// error about a record names its line; what loads is consistent with the
// input (hash, line numbers, the limit); and --skip-invalid changes nothing
// on a file that loads without it, and skips the record a failed load names;
// Scan then Stream give what Load gives.
func FuzzLoad(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.*"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(uint8(0), string(b), uint16(0))
			f.Add(uint8(4), string(b), uint16(64))
		}
	}
	for _, s := range []struct {
		kind  uint8
		in    string
		limit uint16
	}{
		{0, `{"user_input":"q1","response":"a1","retrieved_contexts":["c1","c2"],"reference":"r1"}` + "\n" + `{"user_input":"q2","response":"a2"}`, 0},
		{0, `{"question":"q","answer":"` + strings.Repeat("a", 80) + `"}` + "\r\n\r\n" + `{"question":"q2","answer":"a2","id":7}`, 60},
		{1, "[\n {\"question\":\"q\",\"answer\":\"a\",\"contexts\":[\"c\"],\"ground_truths\":[\"g1\",\"\",\"g2\"]}\n]", 0},
		{1, `{"name":"x","samples":[{"question":"q","answer":"a"},{"question":"q2","answer":"` + strings.Repeat("b", 50) + `"}],"meta":{"v":1}}`, 40},
		{1, `[{"vars":{"query":"q","context":"the policy","answer":"a","ground_truth":"g"},"assert":[]}]`, 0},
		{1, "[\n{\"question\":\"q\",\n\"answer\":\"a\"\n,,}]", 0},
		{2, "id,user_input,response,retrieved_contexts,reference\n" + `1,q,a,"[""c1"", """", ""c2""]",r` + "\n" + `2,q,a,"['it\'s', ""say \""hi\""""]",` + "\n", 0},
		{2, "question,answer\r\nq1,a1\r\n\"q,2\",\"a\r\n" + strings.Repeat("x", 40) + "\"\r\n3,\"bad\"x\n", 30},
		{3, "question\tanswer\nq, with comma\ta\n", 0},
		{4, "\xEF\xBB\xBF{\"question\":\"问题\",\"answer\":\"回答\"}", 0},
		{4, " Question ;Answer;Contexts\nq;a;c\n;;\n", 0},
		{5, "- description: d1\n  vars:\n    query: q\n    context: [c1, '']\n    answer: a\n- vars: {question: q2, answer: a2}\n", 0},
		{5, "defaultTest:\n  vars: {context: shared}\ntests:\n  - vars: &v {query: q, answer: \"" + strings.Repeat("a", 60) + "\"}\n  - vars: {<<: *v, query: q2}\n  - file://missing.yaml\n", 40},
		{5, "question: [q1, q2]\nanswer: [a1, \"a\\u202e2\"]\ncontexts: [[c], []]\n", 0},
		{5, "- &a [x, x, x, x]\n- &b [*a, *a, *a, *a]\n- question: q\n  answer: a\n  contexts: [*b, *b, *b, *b]\n", 100},
		{5, "samples:\n- {question: q, answer: 42}\n- question: q\n  answer: a\n  answer: b\n- [1]\n", 0},
		{7, "---\ntests:\n  - vars: {query: q, answer: a}\n", 0},
		{7, "- question: \"q\x01\"\n\tanswer: a\n", 0},
		// Conversations: interleaved flat turns with a gap, a nested record.
		{0, `{"conversation_id":"a","turn":1,"question":"q","answer":"a"}` + "\n" + `{"conversation_id":"b","turn":1,"question":"q","answer":"a"}` + "\n" +
			`{"conversation_id":"a","turn":3,"question":"q","answer":"a"}`, 0},
		{0, `{"conversation_id":"c","user_input":[{"type":"human","content":"q"},{"role":"assistant","content":"a","retrieved_contexts":["c"]},{"type":"ai","content":"b"}]}`, 0},
		{2, "conversation_id,turn,question,answer\na,1,q,a\na,2.0,q,a\n", 0},
	} {
		f.Add(s.kind, s.in, s.limit)
	}
	traces, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "traces", "*.*"))
	for _, p := range traces {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(uint8(0), string(b), uint16(0))
			f.Add(uint8(1), string(b), uint16(0))
			f.Add(uint8(7), string(b), uint16(200))
			f.Add(uint8(0), string(b[:len(b)*2/3]), uint16(0))
		}
	}
	for _, data := range fuzzParquetSeeds(f) {
		f.Add(uint8(6), string(data), uint16(0))
		f.Add(uint8(6), string(data[:len(data)/2]), uint16(0))
		f.Add(uint8(6), string(data), uint16(64))
	}
	book := evalWorkbook(f)
	for _, data := range [][]byte{book, book[:len(book)/2], book[:len(book)-30], zipOf(f, "xl/workbook.xml", "<workbook/>")} {
		f.Add(uint8(8), string(data), uint16(0))
	}
	f.Add(uint8(8), string(book), uint16(40))
	f.Fuzz(readsAsLoads(fuzzNames))
}

func checkLoad(t *testing.T, name, in string, opt Options, l *Loaded, err error) {
	t.Helper()
	if err != nil {
		if l != nil {
			t.Fatalf("both a result and the error %v", err)
		}
		if !strings.HasPrefix(err.Error(), name) {
			t.Fatalf("error %q does not name the file", err)
		}
		var e *Error
		if errors.As(err, &e) && e.Skippable && e.Line < 1 {
			t.Fatalf("error about a record names no line: %v", err)
		}
		return
	}
	sum := sha256.Sum256([]byte(in))
	if l.SHA256 != hex.EncodeToString(sum[:]) {
		t.Fatalf("sha256 %s, want %x", l.SHA256, sum)
	}
	if len(l.Samples) == 0 {
		t.Fatalf("loaded with no samples and no error")
	}
	limit := maxRecordBytes(opt)
	last := 0
	ids := map[string]bool{}
	for i, s := range l.Samples {
		// A trace file's line may hold several requests.
		sameLine := s.Line == last && read.IsTraceFormat(l.Format)
		if s.Index != i || (s.Line <= last && !sameLine) || strings.TrimSpace(s.Question) == "" {
			t.Fatalf("sample %d: index %d, line %d after %d, question %q", i, s.Index, s.Line, last, s.Question)
		}
		last = s.Line
		if s.ID != "" {
			if ids[s.ID] {
				t.Fatalf("duplicate id %q loaded", s.ID)
			}
			ids[s.ID] = true
		}
		size := len(s.ID) + len(s.Question) + len(s.Answer) + len(s.Reference)
		for _, c := range s.Contexts {
			size += len(c)
		}
		if int64(size) > limit {
			t.Fatalf("sample %d holds %d bytes of text, over the record limit %d", i, size, limit)
		}
	}
	for _, s := range l.Skipped {
		if s.Line < 1 || s.Reason == "" {
			t.Fatalf("skipped %+v names no line or reason", s)
		}
	}
}

// readsAsLoads is the body of the load fuzz targets over the file names
// kind picks from: no panic, an error names its record, what loads is
// consistent with the input, --skip-invalid changes nothing on a file that
// loads and skips the record a failed load names, and Scan and Stream of
// the file agree with Load.
func readsAsLoads(names []string) func(t *testing.T, kind uint8, in string, limit uint16) {
	return func(t *testing.T, kind uint8, in string, limit uint16) {
		name := names[int(kind)%len(names)]
		opt := Options{MaxRecordBytes: int64(limit)}
		l, err := Read(name, strings.NewReader(in), opt)
		checkLoad(t, name, in, opt, l, err)
		opt.SkipInvalid = true
		ls, errs := Read(name, strings.NewReader(in), opt)
		checkLoad(t, name, in, opt, ls, errs)
		// Scan and Stream of the file agree with Load, with and without --skip-invalid.
		path := filepath.Join(t.TempDir(), filepath.Base(name))
		if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
			t.Fatal(err)
		}
		sameAsLoad(t, path, opt)
		sameAsLoad(t, path, Options{MaxRecordBytes: opt.MaxRecordBytes})
		if err == nil {
			if errs != nil || !reflect.DeepEqual(l.Samples, ls.Samples) || len(ls.Skipped) > 0 {
				t.Fatalf("--skip-invalid on a valid file: %v, %d samples (want %d), skipped %+v", errs, len(ls.Samples), len(l.Samples), ls.Skipped)
			}
			return
		}
		var e *Error
		if errors.As(err, &e) && e.Skippable && errs == nil {
			if len(ls.Skipped) == 0 || ls.Skipped[0].Line != e.Line || ls.Skipped[0].Reason != e.Msg || ls.Skipped[0].Field != e.Field {
				t.Fatalf("the load failed with %v, but --skip-invalid skipped %+v", err, ls.Skipped)
			}
		}
	}
}
