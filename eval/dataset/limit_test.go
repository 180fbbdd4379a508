package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// rec is a JSON Lines record whose answer makes it exactly n bytes long.
func rec(q string, n int) string {
	head := fmt.Sprintf(`{"question":%q,"answer":"`, q)
	return head + strings.Repeat("a", n-len(head)-2) + `"}`
}

func TestRecordLimitJSONL(t *testing.T) {
	const limit = 1000
	opt := Options{MaxRecordBytes: limit}
	at := rec("at", limit)
	if _, err := Read("d.jsonl", strings.NewReader(at+"\r\n"+rec("q", 10+limit/2)+"\n"), opt); err != nil {
		t.Fatalf("a record of exactly the limit: %v", err)
	}
	over := rec("over", limit+1)
	in := rec("q1", 100) + "\n" + over + "\n" + rec("q3", 100)
	_, err := Read("d.jsonl", strings.NewReader(in), opt)
	want := `d.jsonl:2: field "answer": the record is 1001 bytes (1001 bytes; key "answer" holds 973 bytes), over the limit of 1000 bytes per record — raise the limit with --max-record-bytes (or pass --skip-invalid to evaluate the other records)`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v\nwant     %s", err, want)
	}
	var e *Error
	if !errors.As(err, &e) || e.Line != 2 || e.Field != "answer" || !e.Skippable {
		t.Fatalf("error %+v", e)
	}

	opt.SkipInvalid = true
	l, err := Read("d.jsonl", strings.NewReader(in), opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Samples) != 2 || l.Samples[0].Question != "q1" || l.Samples[1].Question != "q3" || l.Samples[1].Line != 3 {
		t.Fatalf("samples %+v", l.Samples)
	}
	if len(l.Skipped) != 1 || l.Skipped[0].Line != 2 || l.Skipped[0].Field != "answer" || !strings.Contains(l.Skipped[0].Reason, "over the limit of 1000 bytes") {
		t.Fatalf("skipped %+v", l.Skipped)
	}
}

// TestRecordLimitNamesTheField: the field blamed is the one whose value
// holds most of the record, under its own name, a --map column or vars.
func TestRecordLimitNamesTheField(t *testing.T) {
	big := strings.Repeat("c", 5000)
	tests := []struct {
		name, in string
		opt      Options
		field    string
		part     string
	}{
		{"ragas 0.2 contexts", `{"user_input":"q","response":"a","retrieved_contexts":["x","` + big + `"],"reference":"r"}`, Options{}, "contexts", `key "retrieved_contexts"`},
		{"promptfoo vars", `{"vars":{"query":"q","context":"` + big + `","answer":"a"}}`, Options{}, "contexts", `key "vars.context"`},
		{"--map column", `{"q":"q","a":"a","docs":"` + big + `"}`, Options{Map: map[string]string{"question": "q", "answer": "a", "contexts": "docs"}}, "contexts", `key "docs"`},
		{"no field of ours", `{"question":"q","answer":"a","meta":{"blob":"` + big + `"}}`, Options{}, "", `key "meta.blob"`},
		{"not an object", `["` + big + `"]`, Options{}, "", "(4.9 KiB), over"},
		{"escaped quotes", `{"question":"q","answer":"\"\\\"` + big + `\\\\"}`, Options{}, "answer", `key "answer"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.opt.MaxRecordBytes = 1000
			for _, file := range []string{"d.jsonl", "d.json"} {
				in := tt.in
				if file == "d.json" {
					in = "[\n" + in + "\n]"
				}
				_, err := Read(file, strings.NewReader(in), tt.opt)
				var e *Error
				if !errors.As(err, &e) || e.Line != 1 || e.Field != tt.field || !strings.Contains(e.Msg, tt.part) || !strings.Contains(e.Msg, "--max-record-bytes") {
					t.Errorf("%s: error %v, want line 1, field %q, naming %s", file, err, tt.field, tt.part)
				}
			}
		})
	}
}

func TestRecordLimitJSONArray(t *testing.T) {
	const limit = 1000
	// The element too big spans lines: the lines after it must still be
	// counted right, here in the syntax error at the end.
	over := "{\"question\": \"big\",\n \"answer\": \"" + strings.Repeat("a\\n", 600) + "\",\n\"x\":\n\n1}"
	in := "[\n" + rec("q1", 100) + ",\n" + over + ",\n" + rec("q3", 100) + ",\n  {\"question\": oops}\n]"
	_, err := Read("d.json", strings.NewReader(in), Options{MaxRecordBytes: limit})
	want := `d.json: element 2: field "answer": the record starting at line 3 is 1843 bytes (1.8 KiB; key "answer" holds 1.8 KiB), over the limit of 1000 bytes per record — raise the limit with --max-record-bytes (or pass --skip-invalid`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error = %v\nwant     %s", err, want)
	}
	l, err := Read("d.json", strings.NewReader(in), Options{MaxRecordBytes: limit, SkipInvalid: true})
	if err == nil || !strings.HasPrefix(err.Error(), "d.json: element 4: invalid JSON at line 9:") {
		t.Fatalf("skipping: error = %v, %+v", err, l)
	}
	in = strings.Replace(in, `{"question": oops}`, rec("q4", 200), 1)
	l, err = Read("d.json", strings.NewReader(in), Options{MaxRecordBytes: limit, SkipInvalid: true})
	if err != nil || len(l.Samples) != 3 || l.Samples[2].Line != 4 || len(l.Skipped) != 1 || l.Skipped[0].Line != 2 || l.Skipped[0].Unit != read.UnitElement {
		t.Fatalf("skipping: %v, %+v", err, l)
	}

	// In a {"samples": [...]} object, the same; another key's value or a
	// key too big ends the read, naming its line.
	obj := `{"name": "x", "samples": [` + rec("q1", 100) + ",\n" + over + `], "meta": {}}`
	l, err = Read("d.json", strings.NewReader(obj), Options{MaxRecordBytes: limit, SkipInvalid: true})
	if err != nil || len(l.Samples) != 1 || len(l.Skipped) != 1 || l.Skipped[0].Line != 2 {
		t.Fatalf("samples object: %v, %+v", err, l)
	}
	for _, tt := range []struct{ in, want string }{
		{`{"samples": [` + rec("q1", 100) + `], "meta":` + "\n" + `{"blob": "` + strings.Repeat("m", 2000) + `"}}`,
			"d.json: the JSON value at line 2 is 2012 bytes (2.0 KiB), over the limit of 1000 bytes per record"},
		{`{"samples": [], "` + strings.Repeat("k", 2000) + `": 1}`, "d.json: a key of the top-level object, at line 1, is 2002 bytes"},
		{`"` + strings.Repeat("s", 2000) + `"`, "d.json: the JSON value at line 1 is 2002 bytes"},
	} {
		_, err := Read("d.json", strings.NewReader(tt.in), Options{MaxRecordBytes: limit, SkipInvalid: true})
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("error = %v\nwant     %s", err, tt.want)
		}
	}
}

func TestRecordLimitCSV(t *testing.T) {
	const limit = 1000
	big := strings.Repeat("x", 1200)
	in := "id,question,answer,contexts\n1,q1,a1,c\n2,q2,a2,\"" + strings.Replace(big, "xxxx", "x\r\n\"\"x", 100) + "\"\n3,q3,a3,c\n4,\"bad\"x,a,c\n"
	_, err := Read("d.csv", strings.NewReader(in), Options{MaxRecordBytes: limit})
	want := `d.csv: row 3: field "contexts": the record starting at line 3 is 1410 bytes (1.4 KiB; column "contexts" holds 1.4 KiB), over the limit of 1000 bytes per record — raise the limit with --max-record-bytes (or pass --skip-invalid`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("error = %v\nwant     %s", err, want)
	}
	// Skipped, the rows after it keep their numbers, and so do the lines
	// of a CSV syntax error.
	_, err = Read("d.csv", strings.NewReader(in), Options{MaxRecordBytes: limit, SkipInvalid: true})
	if err == nil || !strings.HasPrefix(err.Error(), "d.csv: row 5: cannot parse CSV at line 105, column 7:") {
		t.Fatalf("error = %v", err)
	}
	in = strings.Replace(in, `4,"bad"x,a,c`, "4,q4,a4,c", 1)
	l, err := Read("d.csv", strings.NewReader(in), Options{MaxRecordBytes: limit, SkipInvalid: true})
	if err != nil || len(l.Samples) != 3 || l.Samples[2].Line != 5 || len(l.Skipped) != 1 || l.Skipped[0].Line != 3 || l.Skipped[0].Field != "contexts" {
		t.Fatalf("%v, %+v", err, l)
	}
	// A row of exactly the limit (without its line end) is read.
	row := "5,q5,a5," + strings.Repeat("y", limit-8)
	if l, err := Read("d.csv", strings.NewReader("id,question,answer,contexts\r\n"+row+"\r\n"), Options{MaxRecordBytes: limit}); err != nil || len(l.Samples) != 1 {
		t.Fatalf("row at the limit: %v", err)
	}
	if _, err := Read("d.csv", strings.NewReader("id,question,answer,contexts\r\n"+row+"y"), Options{MaxRecordBytes: limit}); err == nil || !strings.Contains(err.Error(), "row 2:") {
		t.Fatalf("row over the limit at EOF: %v", err)
	}
	_, err = Read("d.csv", strings.NewReader(big+",question,answer\nq,a\n"), Options{MaxRecordBytes: limit})
	if err == nil || !strings.HasPrefix(err.Error(), "d.csv: row 1: the header row is 1216 bytes") {
		t.Fatalf("header: %v", err)
	}
}

// TestHugeRecordMemory: a 200 MB single-line file is refused, and skipped
// under --skip-invalid, while the loader allocates a small multiple of the
// 16 MiB limit, not the line (a 60 MB record used to take 7.2 GB); so are a
// 64 MB JSON element and CSV row. Allocation is counted with
// runtime.MemStats.TotalAlloc, which bounds the peak heap from above.
func TestHugeRecordMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 330 MB of files")
	}
	dir := t.TempDir()
	write := func(name, head, tail string, size int) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		w.WriteString(head)
		chunk := []byte(strings.Repeat("x", 1<<20))
		for range size >> 20 {
			w.Write(chunk)
		}
		w.WriteString(tail)
		if err := w.Flush(); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// allocated loads path and returns the bytes allocated meanwhile.
	allocated := func(path string, opt Options) (*Loaded, uint64, error) {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		l, err := Load(path, opt)
		el := time.Since(start)
		runtime.ReadMemStats(&after)
		alloc := after.TotalAlloc - before.TotalAlloc
		t.Logf("%s (skip %v): %v; allocated %.1f MiB in all (heap before %.1f MiB)", filepath.Base(path), opt.SkipInvalid, el.Round(time.Millisecond), float64(alloc)/(1<<20), float64(before.HeapAlloc)/(1<<20))
		return l, alloc, err
	}
	ok := `{"question":"q","answer":"a"}`
	for _, tt := range []struct {
		name, head, tail string
		size             int
		want             string
	}{
		{"huge.jsonl", ok + "\n" + `{"question":"q","answer":"a","contexts":["`, "\"]}\n" + ok + "\n", 200 << 20,
			`huge.jsonl:2: field "contexts": the record is 209715245 bytes (200.0 MiB; key "contexts" holds 200.0 MiB), over the limit of 16 MiB per record`},
		{"huge.json", "[" + ok + ",\n" + `{"question":"q","answer":"a","contexts":["`, "\"]},\n" + ok + "]", 64 << 20,
			`huge.json: element 2: field "contexts": the record starting at line 2 is 67108909 bytes (64.0 MiB; key "contexts" holds 64.0 MiB)`},
		{"huge.csv", "question,answer,contexts\nq,a,c\nq,a,\"", "\"\nq,a,c\n", 64 << 20,
			`huge.csv: row 3: field "contexts": the record starting at line 3 is 67108870 bytes (64.0 MiB; column "contexts" holds 64.0 MiB)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := write(tt.name, tt.head, tt.tail, tt.size)
			defer os.Remove(path)
			_, alloc, err := allocated(path, Options{})
			if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, tt.want)) {
				t.Fatalf("error = %v\nwant     %s", err, tt.want)
			}
			if alloc > 128<<20 {
				t.Fatalf("allocated %d MiB for a record refused at 16 MiB", alloc>>20)
			}
			if tt.name != "huge.jsonl" {
				return
			}
			l, alloc, err := allocated(path, Options{SkipInvalid: true})
			if err != nil || len(l.Samples) != 2 || len(l.Skipped) != 1 || l.Skipped[0].Line != 2 {
				t.Fatalf("skipping: %v, %+v", err, l)
			}
			if alloc > 128<<20 {
				t.Fatalf("allocated %d MiB skipping a record too big", alloc>>20)
			}
		})
	}
}

// TestRecordLimitKeepsSyntaxErrors: a file broken in a way that makes a
// record seem to run on past the limit (a brace inside a single-quoted
// string, a stray quote) still reports the syntax error it would report
// if the limit were not there; a file cut short inside a record too big
// says it is cut short.
func TestRecordLimitKeepsSyntaxErrors(t *testing.T) {
	opt := Options{MaxRecordBytes: 1000}
	pyDicts := "[\n" + strings.Repeat("{'question': 'use { here', 'answer': 'a'},\n", 100) + "]"
	_, err := Read("d.json", strings.NewReader(pyDicts), opt)
	want := "d.json: element 1: invalid JSON at line 2: invalid character '\\'' looking for beginning of object key string"
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("single quotes: %v\nwant %s", err, want)
	}
	truncated := `[{"question": "q", "answer": "` + strings.Repeat("a", 5000)
	for _, o := range []Options{opt, {MaxRecordBytes: 1000, SkipInvalid: true}} {
		_, err = Read("d.json", strings.NewReader(truncated), o)
		if want := "d.json: element 1: the JSON ends too early (truncated file?)"; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("truncated: %v\nwant %s", err, want)
		}
	}
	bareQuote := "question,answer\nq,a \"quoted\" word\n" + strings.Repeat("q,a\n", 1000)
	_, err = Read("d.csv", strings.NewReader(bareQuote), opt)
	if want := `d.csv: row 2: cannot parse CSV at line 2, column 5: bare " in non-quoted-field`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("bare quote: %v\nwant %s", err, want)
	}
	afterQuote := "question,answer\nq,\"a\"b\n" + strings.Repeat("q,\"a\"\n", 1000)
	_, err = Read("d.csv", strings.NewReader(afterQuote), opt)
	if want := `d.csv: row 2: cannot parse CSV at line 2, column 5: extraneous or missing " in quoted-field`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("text after a closing quote: %v\nwant %s", err, want)
	}
	unclosed := "question,answer\nq,a\nq,\"unclosed\n" + strings.Repeat("q,a\n", 1000)
	_, err = Read("d.csv", strings.NewReader(unclosed), opt)
	if want := `d.csv: row 3: field "answer": the record starting at line 3 is 4011 bytes (3.9 KiB; column "answer" holds 3.9 KiB; it runs to the end of the file inside a quoted cell — is a closing quote missing?), over the limit`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("unclosed quote: %v\nwant %s", err, want)
	}
}

// TestRecordLimitBoundary: a record of exactly the limit is read and one
// byte more is refused, in each format, for records both within one read
// buffer and spanning several.
func TestRecordLimitBoundary(t *testing.T) {
	for _, limit := range []int{1000, 3<<20 + 17} {
		opt := Options{MaxRecordBytes: int64(limit)}
		for _, tt := range []struct {
			file string
			in   func(n int) string
		}{
			{"d.jsonl", func(n int) string { return rec("q", n) + "\r\n" + rec("q2", 100) }},
			{"d.json", func(n int) string { return "[\n" + rec("q", n) + ",\n" + rec("q2", 100) + "]" }},
			{"d.csv", func(n int) string { return "question,answer\r\nq," + strings.Repeat("a", n-2) + "\r\nq2,a\r\n" }},
		} {
			if l, err := Read(tt.file, strings.NewReader(tt.in(limit)), opt); err != nil || len(l.Samples) != 2 {
				t.Errorf("%s, limit %d: a record of the limit: %v", tt.file, limit, err)
			}
			_, err := Read(tt.file, strings.NewReader(tt.in(limit+1)), opt)
			var e *Error
			if !errors.As(err, &e) || e.Line != map[string]int{"d.jsonl": 1, "d.json": 1, "d.csv": 2}[tt.file] ||
				!strings.Contains(e.Msg, fmt.Sprintf("is %d bytes", limit+1)) {
				t.Errorf("%s, limit %d: a record one byte over: %v", tt.file, limit, err)
			}
		}
	}
}
