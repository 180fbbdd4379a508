package app

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
)

// What run --detach sends is the settings as typed: Validate's parsed
// form stays out of it, and the server parses the same text again into
// the same form.
func TestValidateKeepsTheWireForm(t *testing.T) {
	cfg := Config{Dataset: "d.jsonl", Metrics: "faithfulness,all", Lang: "zh", Mapping: "question=q", ACWeights: "1,1", FCMode: "Precision",
		Pass: "f=0.6", FailUnder: "f=0.5", MaxDrop: "f=0.1", Baseline: "latest", Concurrency: 1, Strictness: 1, Timeout: time.Second}
	before, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	after, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Errorf("Validate changed the wire form:\n%s\n%s", before, after)
	}
	var got Config
	if err := json.Unmarshal(after, &got); err != nil {
		t.Fatal(err)
	}
	if err := got.Validate(); err != nil {
		t.Fatal(err)
	}
	p := got.Parsed
	if len(p.Metrics) != 4 || p.Metrics[0] != eval.Faithfulness || p.Lang != eval.LangZH || p.Map["question"] != "q" ||
		p.ACWeights != [2]float64{1, 1} || p.FCMode != eval.FCModePrecision || p.NSMode != eval.DefaultNSMode ||
		len(p.Gate.Mean) != 1 || len(p.Gate.Baseline.MaxDrop) != 1 || p.Levels.IsDefault() {
		t.Errorf("parsed on arrival: %+v", p)
	}
}

// An endpoint URL no request could go to is refused before the run, naming
// the flag; --offline needs none.
func TestValidateRefusesAURLWithoutScheme(t *testing.T) {
	for _, tt := range []struct {
		base, emb string
		offline   bool
		want      string // "" accepted
	}{
		{"http://localhost:11434/v1", "", false, ""},
		{"https://api.deepseek.com", "http://127.0.0.1:8081/v1", false, ""},
		{"localhost:11434/v1", "", false, `--base-url "localhost:11434/v1"`},
		{"127.0.0.1:1/v1", "", false, "--base-url"},
		{"http:///v1", "", false, "names no host"},
		{"", "emb.local/v1", false, "--embedding-base-url"},
		{"localhost:11434/v1", "", true, ""},
	} {
		cfg := Config{Dataset: "d.jsonl", BaseURL: tt.base, EmbeddingURL: tt.emb, Offline: tt.offline, Concurrency: 1, Strictness: 1, Timeout: time.Second}
		err := cfg.Validate()
		if tt.want == "" && err != nil || tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "http://localhost:11434/v1")) {
			t.Errorf("%q %q: %v, want %q", tt.base, tt.emb, err, tt.want)
		}
	}
}
