package app

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/store"
)

func TestChooseSample(t *testing.T) {
	a := ChooseSample(1000, 50, 7)
	if len(a) != 50 || !slices.IsSorted(a) || len(slices.Compact(slices.Clone(a))) != 50 || a[0] < 0 || a[49] >= 1000 {
		t.Fatalf("ChooseSample(1000, 50, 7) = %v", a)
	}
	if b := ChooseSample(1000, 50, 7); !slices.Equal(a, b) {
		t.Error("the same seed chose another subset")
	}
	if c := ChooseSample(1000, 50, 8); slices.Equal(a, c) {
		t.Error("another seed chose the same subset")
	}
	// Pinned: a seed recorded in a run must choose the same samples in
	// every later build (the generator is ours for that reason).
	if got, want := ChooseSample(20, 5, 1), []int{0, 1, 12, 13, 19}; !slices.Equal(got, want) {
		t.Errorf("ChooseSample(20, 5, 1) = %v, want %v (the subsets of recorded seeds changed)", got, want)
	}
	if all := ChooseSample(3, 5, 1); !slices.Equal(all, []int{0, 1, 2}) {
		t.Errorf("n > total: %v", all)
	}
	// Uniform enough: over many seeds every index comes up about as often.
	counts := make([]int, 10)
	for seed := uint64(0); seed < 2000; seed++ {
		for _, i := range ChooseSample(10, 3, seed) {
			counts[i]++
		}
	}
	for i, n := range counts {
		if n < 500 || n > 700 { // expected 600
			t.Errorf("index %d chosen %d times in 2000 draws of 3 of 10, want about 600", i, n)
		}
	}
}

// sampleRun runs cfg to its end and returns the indexes it evaluated and
// its record.
func sampleRun(t *testing.T, st *store.Shared, cfg *Config) ([]int, report.RunInfo, *Session) {
	t.Helper()
	s, r := startRun(t, cfg, st)
	var got []int
	for ev := range r.Events {
		if ev.Kind == eval.EventSampleFinished && ev.Result != nil {
			got = append(got, ev.Result.Index)
		}
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(got)
	return got, r.Info(), s
}

// The same seed chooses the same samples whether the dataset is held (the
// interface) or streamed (headless), and the record says it was a sample.
func TestSampleIsTheSameLoadedAndStreamed(t *testing.T) {
	data := smallDataset(t, 20)
	want := ChooseSample(20, 5, 42)
	for _, stream := range []bool{false, true} {
		st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
		cfg := offlineConfig(data, stream)
		cfg.Sample, cfg.Seed = 5, 42
		got, info, s := sampleRun(t, st, cfg)
		if !slices.Equal(got, want) {
			t.Errorf("stream %v: evaluated %v, want %v", stream, got, want)
		}
		if info.Samples != 5 || info.Subset == nil || *info.Subset != (report.Subset{Of: 20, Seed: 42}) ||
			info.Config["sample"] != "5" || info.Config["seed"] != "42" || info.SamplesText() != "5 of 20 (seed 42)" {
			t.Errorf("stream %v: record %+v, subset %+v, config %v", stream, info, info.Subset, info.Config)
		}
		if s.Total() != 5 || !strings.Contains(s.Banner, "sample 5 of 20 (seed 42)") {
			t.Errorf("stream %v: Total %d, banner %q", stream, s.Total(), s.Banner)
		}
	}
	// A headless run says so, and its report carries the subset.
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	cfg := offlineConfig(data, true)
	cfg.Sample, cfg.Seed = 5, 42
	var errb bytes.Buffer
	s, err := Prepare(parsed(t, cfg), st, &errb)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out bytes.Buffer
	if code, err := Headless(context.Background(), s, &out, &errb); err != nil || code != exit.OK {
		t.Fatalf("exit %d, %v\n%s", code, err, errb.String())
	}
	var rep report.Report
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Samples) != 5 || rep.Run.Subset == nil || rep.Run.Subset.Of != 20 {
		t.Errorf("report: %d samples, subset %+v", len(rep.Samples), rep.Run.Subset)
	}
	for _, w := range []string{"evaluating 5 of 20 samples, chosen with --seed 42", "5 of 20 (seed 42) samples"} {
		if !strings.Contains(errb.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, errb.String())
		}
	}
}

// --sample of a dataset that has fewer samples evaluates them all, said,
// and is not recorded as a sample.
func TestSampleLargerThanTheDataset(t *testing.T) {
	data := smallDataset(t, 4)
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	cfg := offlineConfig(data, true)
	cfg.Sample, cfg.Seed = 10, 1
	var errb bytes.Buffer
	s, err := Prepare(parsed(t, cfg), st, &errb)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Total() != 4 || s.Info().Subset != nil || !strings.Contains(errb.String(), "has 4 samples; evaluating all of them") {
		t.Errorf("Total %d, subset %+v, stderr %q", s.Total(), s.Info().Subset, errb.String())
	}
	cfg = parsed(t, offlineConfig(data, true))
	cfg.Sample = -1
	if _, err := Prepare(cfg, st, io.Discard); err != nil {
		t.Fatal("Prepare does not validate; Validate does")
	}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "--sample") {
		t.Errorf("Validate of --sample -1: %v", err)
	}
}

func llmConfig(data, url string) *Config {
	return &Config{Dataset: data, BaseURL: url, APIKey: "test-key-123456", APIType: "openai", Model: "judge",
		EmbeddingModel: "emb", ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3, Concurrency: 4,
		Timeout: 5 * time.Second, MaxRetries: 1, Metrics: "faithfulness,context_precision,context_recall", Lang: "auto", Stream: true}
}

// The cache is content-addressed: a full run after a sample run sends only
// the calls of the samples the sample did not have; together they send
// what a full run on an empty cache sends.
func TestFullRunAfterASampleReusesItsCalls(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	data := smallDataset(t, 12)

	cold := openShared(t, filepath.Join(t.TempDir(), "cold.db"), store.Hold)
	sampleRun(t, cold, llmConfig(data, srv.BaseURL()))
	full := srv.Count("")

	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	cfg := llmConfig(data, srv.BaseURL())
	cfg.Sample, cfg.Seed = 4, DefaultSampleSeed
	before := srv.Count("")
	sampleRun(t, st, cfg)
	sampled := srv.Count("") - before
	before = srv.Count("")
	_, info, _ := sampleRun(t, st, llmConfig(data, srv.BaseURL()))
	rest := srv.Count("") - before
	// Each sample's calls are its own (distinct answers, chunks and
	// references): 2 faithfulness, 2 chunk verdicts, 1 recall.
	if full != 12*5 || sampled != 4*5 || rest != 8*5 || sampled+rest != full {
		t.Errorf("calls: full run %d, sample of 4 %d, full run after it %d; want 60, 20, 40", full, sampled, rest)
	}
	if info.Calls.CacheHits != sampled || info.Calls.Sent() != rest {
		t.Errorf("the full run's record: %+v; want %d cache hits, %d sent", info.Calls, sampled, rest)
	}
}

// --resume of a sampled run evaluates its subset again (only what was not
// finished), and refuses a --sample of its own.
func TestResumeKeepsTheSubset(t *testing.T) {
	data := smallDataset(t, 20)
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	cfg := offlineConfig(data, true)
	cfg.Sample, cfg.Seed = 6, 3
	want, _, s := sampleRun(t, st, cfg)
	info, results, err := st.Run(s.Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	// Run gives a slot per index of the dataset: the subset's are filled.
	var stored []*eval.Result
	for _, r := range results {
		if r != nil {
			stored = append(stored, r)
		}
	}
	if len(stored) != 6 {
		t.Fatalf("%d results stored, want 6", len(stored))
	}
	half := info
	half.ID, half.FinishedAt = "20261201-000000-half", nil
	if err := st.PutRun(half); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResults(half.ID, stored[:2]); err != nil {
		t.Fatal(err)
	}
	again := offlineConfig(data, true)
	again.Resume, again.Sample = half.ID, 6
	if _, err := Prepare(parsed(t, again), st, io.Discard); err == nil || !strings.Contains(err.Error(), "keeps the subset it was started with (6 of 20 (seed 3))") {
		t.Errorf("--resume with --sample: %v", err)
	}
	again = offlineConfig(data, true)
	again.Resume = half.ID
	got, rinfo, rs := sampleRun(t, st, again)
	if !slices.Equal(got, want) || rs.resumed != 2 || rinfo.Samples != 6 || rinfo.Subset == nil || rinfo.Subset.Seed != 3 {
		t.Errorf("resumed: evaluated %v (want %v), resumed %d, record %+v %+v", got, want, rs.resumed, rinfo, rinfo.Subset)
	}
}
