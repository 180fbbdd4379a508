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
	if err != nil || len(l.Samples) != 3 || l.Samples[2].Line != 4 || len(l.Skipped) != 1 || l.Skipped[0].Line != 2 || l.Skipped[0].Unit != unitElement {
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

// TestHugeRecordMemory: a 200 MB single-line file is refused while the
// loader allocates a small multiple of the 16 MiB limit, not the line (a
// 60 MB record used to take 7.2 GB). Allocation is counted with
// runtime.MemStats.TotalAlloc, which bounds the peak heap from above.
func TestHugeRecordMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 3 files of 200 MB")
	}
	const size = 200 << 20
	dir := t.TempDir()
	write := func(name, head, tail string, fill byte) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		w.WriteString(head)
		chunk := []byte(strings.Repeat(string(fill), 1<<20))
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
	ok := `{"question":"q","answer":"a"}`
	for _, tt := range []struct{ name, head, tail, want string }{
		{"huge.jsonl", ok + "\n" + `{"question":"q","answer":"a","contexts":["`, "\"]}\n" + ok + "\n", `huge.jsonl:2: field "contexts": the record is 209715245 bytes (200.0 MiB; key "contexts" holds 200.0 MiB), over the limit of 16 MiB per record`},
		{"huge.json", "[" + ok + ",\n" + `{"question":"q","answer":"a","contexts":["`, "\"]},\n" + ok + "]", `huge.json: element 2: field "contexts": the record starting at line 2 is 209715245 bytes`},
		{"huge.csv", "question,answer,contexts\nq,a,c\nq,a,\"", "\"\nq,a,c\n", `huge.csv: row 3: field "contexts": the record starting at line 3 is 209715206 bytes (200.0 MiB; column "contexts" holds 200.0 MiB)`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := write(tt.name, tt.head, tt.tail, 'x')
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := Load(path, Options{})
			el := time.Since(start)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s: refused in %v; allocated %.1f MiB in all (heap before %.1f MiB)", tt.name, el, float64(alloc)/(1<<20), float64(before.HeapAlloc)/(1<<20))
			if err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, tt.want)) {
				t.Fatalf("error = %v\nwant     %s", err, tt.want)
			}
			if alloc > 128<<20 {
				t.Fatalf("allocated %d MiB for a record refused at 16 MiB", alloc>>20)
			}
			// Skipped, the records around it load.
			l, err := Load(path, Options{SkipInvalid: true})
			if err != nil || len(l.Samples) != 2 || len(l.Skipped) != 1 {
				t.Fatalf("skipping: %v, %+v", err, l)
			}
			os.Remove(path)
		})
	}
}
