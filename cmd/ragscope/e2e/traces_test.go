package e2e

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// TestTraceDataset: an OpenTelemetry collector's file export of a RAG
// service's spans is evaluated with the offline judge, a sample per traced
// request; a file cut short is refused naming its line.
func TestTraceDataset(t *testing.T) {
	otlp := repoFile("testdata/traces/otlp.jsonl")
	r := runBin(t, cleanEnv(t), "run", "--headless", otlp)
	if r.code != exitOK || !strings.Contains(r.stderr, "4 samples") {
		t.Fatalf("exit %d:\n%s", r.code, r.stderr)
	}
	rep := decodeReport(t, r.stdout)
	var ids []string
	byID := map[string]*eval.Result{}
	for _, s := range rep.Samples {
		ids = append(ids, s.ID)
		byID[s.ID] = s
	}
	wantIDs := []string{
		"5b8efff798038103d269b633813fc60c",
		"0af7651916cd43dd8448eb211c80319c/b7ad6b7169203334",
		"0af7651916cd43dd8448eb211c80319c/b7ad6b7169203337",
		"4bf92f3577b34da6a3ce929d0e0e4736",
	}
	if !reflect.DeepEqual(ids, wantIDs) {
		t.Fatalf("ids %q, want %q", ids, wantIDs)
	}
	tax := byID[wantIDs[0]]
	if len(tax.Contexts) != 3 || !strings.HasPrefix(tax.Contexts[0], "纳税人识别号是税务登记的唯一代码") || tax.Reference != "纳税人识别号不变。" {
		t.Fatalf("taxpayer request: contexts %q, reference %q", tax.Contexts, tax.Reference)
	}
	if _, ok := tax.Score(eval.Faithfulness); !ok {
		t.Fatalf("taxpayer request not scored for faithfulness: %v", tax.Status)
	}
	// The request without a retriever span is a sample without chunks.
	if st := byID[wantIDs[3]].Status[eval.Faithfulness]; st != eval.StatusMissingInput {
		t.Fatalf("request without retriever: faithfulness %q, want missing_input", st)
	}

	data, err := os.ReadFile(otlp)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.jsonl")
	first := strings.Index(string(data), "\n") + 1
	os.WriteFile(cut, data[:first+(len(data)-first)/2], 0o644)
	r = runBin(t, cleanEnv(t), "run", "--headless", cut)
	if want := cut + ":2: invalid JSON: it ends in the middle of a value"; r.code != exitUsage || !strings.Contains(r.stderr, want) {
		t.Fatalf("cut file: exit %d, stderr lacks %q:\n%s", r.code, want, r.stderr)
	}
}
