package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// sameAsLoad checks that Scan then Stream of path gives what Load gives:
// the same error, or the same Loaded minus Samples and then exactly Load's
// samples; it returns Load's result.
func sameAsLoad(t *testing.T, path string, opt Options) (*Loaded, error) {
	t.Helper()
	l, lerr := Load(path, opt)
	s, serr := Scan(path, opt)
	if fmt.Sprint(lerr) != fmt.Sprint(serr) {
		t.Fatalf("Load error %v, Scan error %v", lerr, serr)
	}
	if lerr != nil {
		if s != nil {
			t.Fatalf("Scan gave both %+v and %v", s, serr)
		}
		return nil, lerr
	}
	if s.Samples != nil {
		t.Fatalf("Scan kept %d samples", len(s.Samples))
	}
	want := *l
	want.Samples = nil
	if !reflect.DeepEqual(*s, want) {
		t.Fatalf("Scan = %+v\nLoad = %+v (minus Samples)", *s, want)
	}
	if l.Count != len(l.Samples) {
		t.Fatalf("Load: Count %d, %d samples", l.Count, len(l.Samples))
	}
	var got []eval.Sample
	if err := Stream(path, opt, s, func(x eval.Sample) bool { got = append(got, x); return true }); err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if !reflect.DeepEqual(got, l.Samples) {
		t.Fatalf("Stream yielded\n%+v\nLoad returned\n%+v", got, l.Samples)
	}
	return l, nil
}

// streamsLikeLoad writes in to a file named as name and checks sameAsLoad on it.
func streamsLikeLoad(t *testing.T, name string, in []byte, opt Options) {
	t.Helper()
	path := filepath.Join(t.TempDir(), filepath.Base(name))
	if err := os.WriteFile(path, in, 0o644); err != nil {
		t.Fatal(err)
	}
	sameAsLoad(t, path, opt)
}

// TestStreamSkipsWhatScanSkipped: under --skip-invalid a stream leaves out
// the records the scan skipped, repeated ids too, with no error.
func TestStreamSkipsWhatScanSkipped(t *testing.T) {
	tests := []struct {
		name, file, in string
		wantIDs        []string
		wantSkip       []int // lines
	}{
		{
			name: "jsonl", file: "d.jsonl",
			in: `{"id":"a","question":"q","answer":"x"}` + "\n" +
				`{"id":"b","question":"q"}` + "\n" +
				`{"id":"a","question":"q","answer":"x"}` + "\n" +
				"not json\n" +
				`{"id":"b","question":"q","answer":"x"}` + "\n" +
				`{"question":"q","answer":"x"}` + "\n" +
				`{"id":"b","question":"q","answer":"x"}` + "\n",
			wantIDs: []string{"a", "b", ""}, wantSkip: []int{2, 3, 4, 7},
		},
		{
			name: "csv", file: "d.csv",
			in:      "id,question,answer\n1,q,a\n2,,a\n1,q,a\n3,q,a\n3,q\n",
			wantIDs: []string{"1", "3"}, wantSkip: []int{3, 4, 6},
		},
		{
			name: "json array", file: "d.json",
			in:      `[{"id":1,"question":"q","answer":"a"}, 7, {"id":"1","question":"q","answer":"a"}, {"id":2,"question":"q","answer":"a"}]`,
			wantIDs: []string{"1", "2"}, wantSkip: []int{2, 3},
		},
		{
			name: "column-oriented json", file: "d.json",
			in:      `{"id":["x","y","x"],"question":["q","q","q"],"answer":["a","a","a"]}`,
			wantIDs: []string{"x", "y"}, wantSkip: []int{3},
		},
		{
			name: "yaml", file: "d.yaml",
			in:      "- {id: x, question: q, answer: a}\n- {id: x, question: q, answer: a}\n- {id: y, question: q}\n- {id: y, question: q, answer: a}\n",
			wantIDs: []string{"x", "y"}, wantSkip: []int{2, 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tt.file)
			if err := os.WriteFile(path, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := sameAsLoad(t, path, Options{SkipInvalid: true})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, s := range l.Samples {
				ids = append(ids, s.ID)
			}
			var lines []int
			for _, s := range l.Skipped {
				lines = append(lines, s.Line)
				if s.Reason == "" {
					t.Errorf("skip %+v has no reason", s)
				}
			}
			if !slices.Equal(ids, tt.wantIDs) || !slices.Equal(lines, tt.wantSkip) || l.SkippedCount != len(tt.wantSkip) {
				t.Errorf("ids %q, skipped lines %v (count %d); want %q, %v", ids, lines, l.SkippedCount, tt.wantIDs, tt.wantSkip)
			}
		})
	}
}

// TestStreamChangedFile: a file changed between Scan and Stream is an
// error naming the file and both hashes once it is read; a sample the
// scan did not count is never yielded.
func TestStreamChangedFile(t *testing.T) {
	rec := func(id string) string { return `{"id":"` + id + `","question":"q","answer":"a"}` + "\n" }
	orig := rec("1") + rec("2") + rec("3")
	tests := []struct {
		name   string
		opt    Options
		change string
		want   []string // in the error
		yields int
	}{
		{name: "a record appended", change: orig + rec("4"), yields: 3,
			want: []string{"it now has 4 valid samples, the scan found 3"}},
		{name: "a byte changed", change: strings.Replace(orig, `"q"`, `"Q"`, 1), yields: 3},
		{name: "a record removed", change: rec("1") + rec("3"), yields: 2,
			want: []string{"it now has 2 valid samples, the scan found 3"}},
		{name: "a record made invalid", change: rec("1") + `{"id":"2"}` + "\n" + rec("3"), yields: 1,
			want: []string{"it now fails to read: ", `:2: field "question": missing`}},
		{name: "a record made invalid, skipped", opt: Options{SkipInvalid: true}, change: rec("1") + `{"id":"2"}` + "\n" + rec("3"), yields: 2,
			want: []string{"it now has 2 valid samples, the scan found 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "dataset.jsonl")
			if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := Scan(path, tt.opt)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(tt.change), 0o644); err != nil {
				t.Fatal(err)
			}
			n := 0
			err = Stream(path, tt.opt, s, func(eval.Sample) bool { n++; return true })
			var ce *ChangedError
			if !errors.As(err, &ce) {
				t.Fatalf("Stream = %v, want a *ChangedError", err)
			}
			want := append([]string{path + " changed while it was being evaluated (", "); start a new run"}, tt.want...)
			if ce.SHA256 != "" {
				want = append(want, fmt.Sprintf("(sha256 %s, was %s", ce.SHA256, s.SHA256))
			}
			for _, w := range want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if ce.Was != s.SHA256 || (ce.SHA256 == "") != (tt.want != nil && strings.HasPrefix(tt.want[0], "it now fails")) {
				t.Errorf("ChangedError %+v, scan's sha256 %s", ce, s.SHA256)
			}
			if n != tt.yields {
				t.Errorf("yielded %d samples, want %d", n, tt.yields)
			}
		})
	}
}

// TestStreamStopsEarly: yield returning false ends the stream with no
// error, whatever follows in the file.
func TestStreamStopsEarly(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.jsonl")
	in := ""
	for i := range 10 {
		in += fmt.Sprintf(`{"question":"q%d","answer":"a"}`+"\n", i)
	}
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Scan(path, Options{})
	if err != nil || s.Count != 10 {
		t.Fatalf("Scan: %v, %+v", err, s)
	}
	for _, stopAt := range []int{1, 3, 10} {
		var got []string
		err := Stream(path, Options{}, s, func(x eval.Sample) bool {
			got = append(got, x.Question)
			return len(got) < stopAt
		})
		if err != nil || len(got) != stopAt || got[stopAt-1] != fmt.Sprintf("q%d", stopAt-1) {
			t.Errorf("stop at %d: %v, yielded %q", stopAt, err, got)
		}
	}
}

// TestStreamMisuse: Stream needs the scan and the scan's options.
func TestStreamMisuse(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.jsonl")
	if err := os.WriteFile(path, []byte(`{"question":"q","answer":"a"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Scan(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	yield := func(eval.Sample) bool { t.Error("yielded"); return true }
	for _, tt := range []struct {
		name    string
		opt     Options
		scanned *Loaded
		want    string
	}{
		{"no scan", Options{}, nil, "without its Scan"},
		{"other options", Options{SkipInvalid: true}, s, "with options other than its Scan's"},
		{"other map", Options{Map: map[string]string{"question": "q"}}, s, "with options other than its Scan's"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := Stream(path, tt.opt, tt.scanned, yield); err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("Stream = %v, want an error naming %s and saying %q", err, path, tt.want)
			}
		})
	}
}

// TestDuplicateIDs: a repeated id is found, with where the id was first
// used, and skipped under --skip-invalid; distinct ids load; a stream that
// cannot be read twice gives what Load gives.
func TestDuplicateIDs(t *testing.T) {
	jsonl := func(ids ...string) string {
		var b strings.Builder
		for _, id := range ids {
			fmt.Fprintf(&b, `{"id":%q,"question":"q","answer":"a"}`+"\n", id)
		}
		return b.String()
	}
	tests := []struct {
		name     string
		in       string
		skip     bool
		wantErr  string
		wantIDs  []string
		wantSkip []string // reasons
	}{
		{name: "distinct ids load", in: jsonl("x", "y", "z"), wantIDs: []string{"x", "y", "z"}},
		{name: "a repeat after another id", in: jsonl("x", "y", "x"),
			wantErr: `:3: field "id": duplicate id "x", first used at line 1 — `},
		{name: "a repeat", in: jsonl("x", "x"),
			wantErr: `:2: field "id": duplicate id "x", first used at line 1 — `},
		{name: "skip: repeats", skip: true, in: jsonl("a", "b", "a", "c", "b"),
			wantIDs:  []string{"a", "b", "c"},
			wantSkip: []string{`duplicate id "a", first used at line 1 `, `duplicate id "b", first used at line 2 `}},
		{name: "skip: an id repeated twice", skip: true, in: jsonl("a", "b", "a", "c", "b", "b"),
			wantIDs: []string{"a", "b", "c"},
			wantSkip: []string{`duplicate id "a", first used at line 1 `, `duplicate id "b", first used at line 2 `,
				`duplicate id "b", first used at line 2 `}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d.jsonl")
			if err := os.WriteFile(path, []byte(tt.in), 0o644); err != nil {
				t.Fatal(err)
			}
			opt := Options{SkipInvalid: tt.skip}
			l, err := Load(path, opt)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), path+tt.wantErr) {
					t.Fatalf("Load error %v, want %s%s...", err, path, tt.wantErr)
				}
			} else if err != nil {
				t.Fatalf("Load: %v", err)
			} else {
				var ids []string
				for _, s := range l.Samples {
					ids = append(ids, s.ID)
				}
				if !slices.Equal(ids, tt.wantIDs) || len(l.Skipped) != len(tt.wantSkip) {
					t.Fatalf("ids %q, skipped %+v; want %q and %d skipped", ids, l.Skipped, tt.wantIDs, len(tt.wantSkip))
				}
				for i, s := range l.Skipped {
					if !strings.HasPrefix(s.Reason, tt.wantSkip[i]) {
						t.Errorf("skip %d: %q, want %q...", i, s.Reason, tt.wantSkip[i])
					}
				}
			}
			sameAsLoad(t, path, opt)
			r, err := Read(path, io.MultiReader(strings.NewReader(tt.in)), opt)
			if fmt.Sprint(err) != fmt.Sprint(errOf(Load(path, opt))) {
				t.Errorf("Read from a stream: %v", err)
			}
			if lr, _ := Load(path, opt); err == nil && !reflect.DeepEqual(r, lr) {
				t.Errorf("Read from a stream = %+v, Load = %+v", r, lr)
			}
		})
	}
}

func errOf(_ *Loaded, err error) error { return err }

// TestSkippedIsCapped: past MaxSkipped records skipped, the rest are
// counted, not listed; a file of nothing but invalid records says how many.
func TestSkippedIsCapped(t *testing.T) {
	var b strings.Builder
	for i := range MaxSkipped + 500 {
		fmt.Fprintf(&b, `{"id":%d,"question":"q"}`+"\n", i)
		if i%100 == 0 {
			fmt.Fprintf(&b, `{"id":"v%d","question":"q","answer":"a"}`+"\n", i)
		}
	}
	path := filepath.Join(t.TempDir(), "d.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := sameAsLoad(t, path, Options{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Skipped) != MaxSkipped || l.SkippedCount != MaxSkipped+500 || l.Count != 15 {
		t.Fatalf("%d listed, %d skipped, %d samples; want %d, %d, 15", len(l.Skipped), l.SkippedCount, l.Count, MaxSkipped, MaxSkipped+500)
	}
	if last := l.Skipped[MaxSkipped-1]; last.Line != MaxSkipped+10 || last.Field != "answer" {
		t.Errorf("last listed skip %+v, want line %d", last, MaxSkipped+10)
	}
	bad := strings.Repeat(`{"question":"q"}`+"\n", MaxSkipped+1)
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = sameAsLoad(t, path, Options{SkipInvalid: true})
	if want := fmt.Sprintf("no valid samples — all %d records are invalid; the first, line 1: ", MaxSkipped+1); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %q", err, want)
	}
}

// tinyFile writes n tiny samples in format to dir.
func tinyFile(tb testing.TB, dir, format string, n int) string {
	path := filepath.Join(dir, "tiny."+format)
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	switch format {
	case "csv":
		w.WriteString("id,question,answer,contexts\n")
	case "json":
		w.WriteString("[\n")
	}
	for i := range n {
		switch format {
		case "csv":
			fmt.Fprintf(w, "s%d,question %d?,answer %d,\"[\"\"context %d\"\"]\"\n", i, i, i, i)
		default:
			if format == "json" && i > 0 {
				w.WriteString(",\n")
			}
			fmt.Fprintf(w, `{"id":"s%d","question":"question %d?","answer":"answer %d","contexts":["context %d"]}`, i, i, i, i)
			if format == "jsonl" {
				w.WriteString("\n")
			}
		}
	}
	if format == "json" {
		w.WriteString("\n]\n")
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// TestStreamMemory: streaming 200,000 tiny samples, which Load holds in
// some 36 MiB, grows the live heap by less than 4 MiB (the read buffer and
// a record), in each format that streams. Under the race detector, which
// slows parsing some tenfold, a tenth as many are read.
func TestStreamMemory(t *testing.T) {
	n := 200_000
	if raceEnabled || testing.Short() {
		n = 20_000
	}
	const bound = 4 << 20
	dir := t.TempDir()
	for _, format := range []string{"jsonl", "json", "csv"} {
		t.Run(format, func(t *testing.T) {
			path := tinyFile(t, dir, format, n)
			s, err := Scan(path, Options{})
			if err != nil || s.Count != n {
				t.Fatalf("Scan: %v, %+v", err, s)
			}
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			var peak uint64
			seen := 0
			err = Stream(path, Options{}, s, func(x eval.Sample) bool {
				if x.Index != seen || x.ID != fmt.Sprintf("s%d", seen) {
					t.Fatalf("sample %d is %+v", seen, x)
				}
				seen++
				if seen%(n/8) == 0 {
					runtime.GC()
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc)
				}
				return true
			})
			if err != nil || seen != n {
				t.Fatalf("Stream: %v after %d samples", err, seen)
			}
			t.Logf("%d samples: live heap %.1f MiB before the stream, at most %.1f MiB during it", n, float64(base)/(1<<20), float64(peak)/(1<<20))
			if peak > base+bound {
				t.Errorf("the live heap grew by %.1f MiB while streaming, over %d MiB", float64(peak-base)/(1<<20), bound>>20)
			}
		})
	}
}

func BenchmarkStreamJSONL(b *testing.B) {
	const n = 50_000
	path := tinyFile(b, b.TempDir(), "jsonl", n)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	s, err := Scan(path, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		seen := 0
		if err := Stream(path, Options{}, s, func(eval.Sample) bool { seen++; return true }); err != nil || seen != n {
			b.Fatalf("Stream: %v, %d samples", err, seen)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "samples/s")
}
