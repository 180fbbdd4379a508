package dataset

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// goldenView is what a golden file pins down: every field of every sample,
// including the source line that json:"-" hides on eval.Sample.
type goldenView struct {
	Format  string         `json:"format"`
	Samples []goldenSample `json:"samples"`
	Skipped []Skip         `json:"skipped"`
}

type goldenSample struct {
	Index     int      `json:"index"`
	Line      int      `json:"line"`
	ID        string   `json:"id"`
	Question  string   `json:"question"`
	Answer    string   `json:"answer"`
	Contexts  []string `json:"contexts"`
	Reference string   `json:"reference"`
}

// TestGoldenFixtures loads the example files of each supported shape (files
// a user of RAGAS or promptfoo would have) and compares everything loaded
// with testdata/golden/<file>.golden. Run with -update after a deliberate change.
func TestGoldenFixtures(t *testing.T) {
	tests := []struct {
		file string
		opt  Options
		// refs are the files the dataset references, in the order read:
		// its hash is then that of the sha256s of it and them.
		refs []string
	}{
		{file: "ragas_v02.jsonl"},
		{file: "ragas_v01.json"},
		{file: "promptfoo_vars.json"},
		{file: "pandas_export.csv"},
		{file: "ragas_columns.json"},
		{file: "mixed_invalid.jsonl", opt: Options{SkipInvalid: true}},
		{file: "promptfoo_tests.yaml"},
		{file: "promptfoo/promptfooconfig.yaml", refs: []string{"promptfoo/tests/cases.csv", "promptfoo/tests/more.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", tt.file)
			l, err := sameAsLoad(t, path, tt.opt)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			sum := sha256.Sum256(raw)
			if len(tt.refs) > 0 {
				sums := sum[:]
				for _, ref := range tt.refs {
					b, err := os.ReadFile(filepath.Join("testdata", ref))
					if err != nil {
						t.Fatal(err)
					}
					s := sha256.Sum256(b)
					sums = append(sums, s[:]...)
				}
				sum = sha256.Sum256(sums)
			}
			if l.SHA256 != hex.EncodeToString(sum[:]) {
				t.Errorf("SHA256 = %s, want the sha256 of the file's bytes (and its references') %x", l.SHA256, sum)
			}
			if l.Path != path {
				t.Errorf("Path = %q, want %q", l.Path, path)
			}
			v := goldenView{Format: l.Format, Skipped: l.Skipped}
			for _, s := range l.Samples {
				v.Samples = append(v.Samples, goldenSample{s.Index, s.Line, s.ID, s.Question, s.Answer, s.Contexts, s.Reference})
			}
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(v); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", strings.ReplaceAll(tt.file, "/", "_")+".golden")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("loaded data differs from %s (run go test -update if the change is intended):\n got:\n%s\nwant:\n%s", golden, buf.Bytes(), want)
			}
		})
	}
}
