package app

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/internal/store"
)

// A headless run writes its report from what it tallied and encoded as
// its results were stored, not by reading the run back: the bytes are
// those `ragscope report` writes of the same run, in every format, with
// the offline judge and an LLM judge (calls, traces, a gate, the exit
// code), and in a time zone other than UTC. The spool is gone after.
func TestHeadlessReportIsTheStoredRunsReport(t *testing.T) {
	t.Setenv("TZ", "Asia/Shanghai")
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	data := smallDataset(t, 24)
	llm := func(format string) *Config {
		return &Config{Dataset: data, BaseURL: srv.BaseURL(), APIKey: "test-key-123456", APIType: "openai", Model: "judge",
			EmbeddingModel: "emb", ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3, Concurrency: 8,
			Timeout: 5 * time.Second, MaxRetries: 1, Metrics: "all", Lang: "auto", Stream: true, Format: format,
			FailUnder: "faithfulness=0.99", FailUnderSample: "f=0.5", MaxFailing: "10%"}
	}
	offline := func(format string) *Config {
		c := offlineConfig(data, true)
		c.Concurrency, c.Format = 8, format
		return c
	}
	// Turns of conversations finish out of order too; the report's
	// conversations must not depend on it.
	conversations := func(format string) *Config {
		c := offlineConfig(filepath.Join("..", "..", "testdata", "conversations.jsonl"), true)
		c.Concurrency, c.Format = 8, format
		return c
	}
	for _, format := range []string{runreport.FormatJSON, runreport.FormatJSONL, runreport.FormatGitHub, runreport.FormatHTML} {
		for judge, cfg := range map[string]func(string) *Config{"llm": llm, "offline": offline, "conversations": conversations} {
			if judge == "llm" && (format == runreport.FormatJSONL || format == runreport.FormatHTML) {
				continue // the same samples as json; the LLM judge's fake is slow
			}
			if judge == "conversations" && format != runreport.FormatJSON {
				continue // the conversations are in the JSON report only
			}
			t.Run(judge+"/"+format, func(t *testing.T) {
				dir := t.TempDir()
				st := openShared(t, filepath.Join(dir, "r.db"), store.Hold)
				s, err := Prepare(parsed(t, cfg(format)), st, io.Discard)
				if err != nil {
					t.Fatal(err)
				}
				defer s.Close()
				used := 0
				liveUsed = func() { used++ }
				defer func() { liveUsed = nil }()
				var out bytes.Buffer
				code, err := Headless(context.Background(), s, &out, io.Discard)
				if err != nil || code == exit.Fatal {
					t.Fatalf("exit %d, %v", code, err)
				}
				if used != 1 {
					t.Fatalf("the report was read from the store, not written from the live pass")
				}
				var again bytes.Buffer
				sr, err := runreport.Write(st, s.Info().ID, format, 0, report.Levels{}, &again)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(out.Bytes(), again.Bytes()) {
					i := firstDiff(out.Bytes(), again.Bytes())
					t.Fatalf("headless wrote %d bytes, report %d; first difference at %d:\n%s\n---\n%s", out.Len(), again.Len(), i, out.Bytes()[max(0, i-300):min(out.Len(), i+100)], again.Bytes()[max(0, i-300):min(again.Len(), i+100)])
				}
				if judge == "llm" {
					if g, err := runreport.ReadGated(st, s.Info().ID, 0, s.Cfg.Parsed.Gate, nil, report.Levels{}); err != nil || g.Code(false) != code {
						t.Fatalf("exit %d, the stored run's gate says %d (%v)", code, g.Code(false), err)
					}
				}
				_ = sr
				left, _ := filepath.Glob(filepath.Join(dir, "*.spool"))
				if hidden, _ := filepath.Glob(filepath.Join(dir, ".*spool")); len(left)+len(hidden) > 0 {
					t.Fatalf("spool left behind: %v %v", left, hidden)
				}
			})
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// A resumed headless run's report holds the samples the earlier attempt
// finished (re-emitted from the store) and the rest, as `report` does.
func TestResumedHeadlessReportIsTheStoredRunsReport(t *testing.T) {
	data := smallDataset(t, 30)
	dir := t.TempDir()
	st := openShared(t, filepath.Join(dir, "r.db"), store.Hold)
	s, err := Prepare(parsed(t, offlineConfig(data, true)), st, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if code, err := Headless(context.Background(), s, io.Discard, io.Discard); err != nil || code == exit.Fatal {
		t.Fatalf("exit %d, %v", code, err)
	}
	info, results, err := st.Run(s.Info().ID)
	s.Close()
	if err != nil {
		t.Fatal(err)
	}
	half := info
	half.ID, half.FinishedAt = "20261201-000000-half", nil
	if err := st.PutRun(half); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResults(half.ID, results[5:17]); err != nil {
		t.Fatal(err)
	}
	cfg := offlineConfig(data, true)
	cfg.Resume = half.ID
	s, err = Prepare(parsed(t, cfg), st, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var out, again bytes.Buffer
	if code, err := Headless(context.Background(), s, &out, io.Discard); err != nil || code == exit.Fatal {
		t.Fatalf("exit %d, %v", code, err)
	}
	if _, err := runreport.Write(st, half.ID, runreport.FormatJSON, 0, report.Levels{}, &again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), again.Bytes()) || !strings.Contains(out.String(), `"index": 29`) {
		t.Fatalf("headless wrote %d bytes, report %d; first difference at %d", out.Len(), again.Len(), firstDiff(out.Bytes(), again.Bytes()))
	}
	_ = os.Remove
}
