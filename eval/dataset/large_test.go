package dataset

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// writeJSONL writes n samples of about 1 KB each and returns the file's bytes' sha256.
func writeJSONL(t testing.TB, w io.Writer, n int) string {
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(w, h), 1<<20)
	chunk := strings.Repeat("纳税人识别号保持不变。", 10) // 300 bytes of CJK
	for i := range n {
		rec := map[string]any{
			"id":                 i,
			"user_input":         fmt.Sprintf("question %d: does the taxpayer id change?", i),
			"response":           "No, it stays the same. " + chunk,
			"retrieved_contexts": []string{chunk, chunk},
			"reference":          "It does not change.",
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		bw.Write(b)
		bw.WriteString("\r\n")
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestLoadLarge loads a ~50 MB JSON Lines file: it must stream through in
// a few seconds and hash every byte.
func TestLoadLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	const n = 48_000
	sum := writeJSONL(t, f, n)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	start := time.Now()
	l, err := Load(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("loaded %d samples, %.1f MB in %v", len(l.Samples), float64(st.Size())/1e6, time.Since(start))
	if st.Size() < 45e6 {
		t.Errorf("test file is only %d bytes, want ~50 MB", st.Size())
	}
	if len(l.Samples) != n || l.SHA256 != sum {
		t.Fatalf("got %d samples, sha %s; want %d, %s", len(l.Samples), l.SHA256, n, sum)
	}
	last := l.Samples[n-1]
	if last.ID != fmt.Sprint(n-1) || last.Line != n || last.Index != n-1 || len(last.Contexts) != 2 {
		t.Errorf("last sample = %+v", last)
	}
}

// TestLongLines: records far longer than bufio's 64 KiB default and than the
// 1 MiB sniffing window load; a line over the record limit is a clear error.
func TestLongLines(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	in := fmt.Sprintf(`{"question":"q","answer":"a","contexts":[%q]}`+"\n"+`{"question":"q2","answer":"%s"}`+"\n", long, long)
	l, err := Read("d.data", strings.NewReader(in), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if l.Format != FormatJSONL || len(l.Samples) != 2 || l.Samples[0].Contexts[0] != long || l.Samples[1].Answer != long {
		t.Errorf("format %q, %d samples: long records were not read whole", l.Format, len(l.Samples))
	}

	huge := io.MultiReader(strings.NewReader("{\"question\":\"q\",\"answer\":\"a\"}\n{\"question\":\""),
		io.LimitReader(repeatReader('y'), DefaultMaxRecordBytes+1))
	_, err = Read("d.jsonl", huge, Options{})
	var e *Error
	want := fmt.Sprintf(`d.jsonl:2: field "question": the record is %d bytes (16.0 MiB; key "question" holds 16.0 MiB), over the limit of 16 MiB per record — raise the limit with --max-record-bytes`, DefaultMaxRecordBytes+14)
	if !errors.As(err, &e) || e.Line != 2 || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %v\nwant     %s", err, want)
	}
}

type repeatReader byte

func (r repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(r)
	}
	return len(p), nil
}

// TestJSONSyntaxErrorLineFarIn: the line of a syntax error deep in a large
// JSON array is right even though newline positions are forgotten as the
// read advances.
func TestJSONSyntaxErrorLineFarIn(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("[\n")
	for range 20_000 {
		b.WriteString("  {\"question\": \"q\",\n   \"answer\": \"a\"},\n")
	}
	b.WriteString("  {\"question\": \"q\",\n   \"answer\": \"a\" oops}\n]\n")
	_, err := Read("d.json", &b, Options{})
	want := fmt.Sprintf("d.json: element 20001: invalid JSON at line %d", 1+20_000*2+2)
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error = %v, want prefix %q", err, want)
	}
}

func TestLoadFileErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "missing.jsonl"), Options{}); err == nil || !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("missing file: error = %v", err)
	}
	if _, err := Load(dir, Options{}); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory: error = %v", err)
	}
}

func TestSHA256IsOfTheFileBytes(t *testing.T) {
	tests := []struct{ name, file, in string }{
		{"bom and trailing blank lines", "d.jsonl", "\xEF\xBB\xBF{\"question\":\"q\",\"answer\":\"a\"}\n\n\n"},
		{"json with trailing whitespace", "d.json", "[{\"question\":\"q\",\"answer\":\"a\"}]   \n\n"},
		{"csv", "d.csv", "question,answer\r\nq,a\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Read(tt.file, strings.NewReader(tt.in), Options{})
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256([]byte(tt.in))
			if l.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("SHA256 = %s, want %x", l.SHA256, sum)
			}
		})
	}
}

func BenchmarkLoadJSONL(b *testing.B) {
	var buf bytes.Buffer
	const n = 5_000
	writeJSONL(b, &buf, n)
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		l, err := Read("bench.jsonl", bytes.NewReader(data), Options{})
		if err != nil || len(l.Samples) != n {
			b.Fatalf("Read: %v", err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "samples/s")
}

// TestJSONSyntaxErrorLines: every way a JSON file can break reports the line
// of the bad byte.
func TestJSONSyntaxErrorLines(t *testing.T) {
	tests := []struct {
		name, in string
		line     int
	}{
		{"bad first token", "\n\n  x", 3},
		{"bad key", "{\n\"a\": 1,\n\"b\x01\": 2}", 3},
		{"bad skipped value", "{\n\"a\": [1,\n 2 3]}", 3},
		{"bad element at its first byte", "[\n{\"question\":\"q\",\"answer\":\"a\"},\n\n}", 4},
		{"bad element inside", "[\n{\"question\":\"q\",\n\"answer\":\"a\"\n,,}]", 4},
		{"bad samples value", "{\"samples\":\n[\n{\"question\": tru}]}", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read("d.json", strings.NewReader(tt.in), Options{})
			want := fmt.Sprintf("invalid JSON at line %d:", tt.line)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error = %v, want %q", err, want)
			}
		})
	}
}
