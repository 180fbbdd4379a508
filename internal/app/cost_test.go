package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/tui"
)

// usageTap sits between the client and the fake judge and adds up what
// the judge reported per task, from its replies: the test then holds the
// run record to the judge's own word, whatever the judge counts tokens with.
type usageTap struct {
	*httptest.Server
	mu    sync.Mutex
	tasks map[string]eval.TaskUsage
}

func newUsageTap(t *testing.T, target string) *usageTap {
	t.Helper()
	tp := &usageTap{tasks: map[string]eval.TaskUsage{}}
	tp.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Format struct {
				Schema struct {
					Name string `json:"name"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		_ = json.Unmarshal(body, &req)
		task, embed := req.Format.Schema.Name, strings.HasSuffix(r.URL.Path, "/embeddings")
		if embed {
			task = eval.TaskEmbeddings
		}
		out, err := http.NewRequestWithContext(r.Context(), r.Method, target+r.URL.Path, bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		out.Header = r.Header.Clone()
		resp, err := http.DefaultClient.Do(out)
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		defer resp.Body.Close()
		reply, _ := io.ReadAll(resp.Body)
		var rep struct {
			Usage eval.Usage `json:"usage"`
		}
		if resp.StatusCode == 200 && json.Unmarshal(reply, &rep) == nil {
			tp.mu.Lock()
			u := tp.tasks[task]
			if embed {
				u.Embeddings++
			} else {
				u.Chat++
			}
			u.PromptTokens += rep.Usage.PromptTokens
			u.CompletionTokens += rep.Usage.CompletionTokens
			tp.tasks[task] = u
			tp.mu.Unlock()
		}
		w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
		w.WriteHeader(resp.StatusCode)
		_, _ = w.Write(reply)
	}))
	t.Cleanup(tp.Close)
	return tp
}

func (tp *usageTap) served() map[string]eval.TaskUsage {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	out := make(map[string]eval.TaskUsage, len(tp.tasks))
	for k, v := range tp.tasks {
		out[k] = v
	}
	return out
}

// recordedTasks flattens a record's usage to its tasks, costs left out.
func recordedTasks(t *testing.T, info report.RunInfo) map[string]eval.TaskUsage {
	t.Helper()
	out := map[string]eval.TaskUsage{}
	for m, mu := range info.Usage {
		var sum eval.TaskUsage
		for task, u := range mu.Tasks {
			if got := eval.MetricOfTask(task); got != m {
				t.Errorf("task %s recorded under %s, serves %s", task, m, got)
			}
			sum.Chat, sum.Embeddings, sum.CacheHits = sum.Chat+u.Chat, sum.Embeddings+u.Embeddings, sum.CacheHits+u.CacheHits
			sum.PromptTokens, sum.CompletionTokens = sum.PromptTokens+u.PromptTokens, sum.CompletionTokens+u.CompletionTokens
			u.CostUSD = nil
			out[task] = u
		}
		if got := mu.TaskUsage; got.Chat != sum.Chat || got.Embeddings != sum.Embeddings || got.CacheHits != sum.CacheHits || got.Usage != sum.Usage {
			t.Errorf("%s: %+v is not the sum of its tasks %+v", m, got, sum)
		}
	}
	return out
}

func costConfig(data, baseURL, model, prices string) *Config {
	return &Config{Dataset: data, BaseURL: baseURL, APIKey: "test-key-123456", APIType: "openai", Model: model,
		EmbeddingModel: "cost-test-embedder", ResponseFormat: "json_schema", EmbedFormat: "float", Strictness: 3,
		Concurrency: 4, Timeout: 10 * time.Second, MaxRetries: 1, Metrics: "all", Lang: "auto", Prices: prices}
}

// writePrices writes a prices.json pricing the test's models; each test
// has its own file, as the process keeps every table it loads.
func writePrices(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prices.json")
	body := `{"date": "2026-01-02", "models": {"cost-test-judge": {"prompt": 1.5, "completion": 6}, "cost-test-embedder": {"prompt": 0.25, "completion": 0}}}`
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func runToEnd(t *testing.T, cfg *Config, st *store.Shared) (*Session, report.RunInfo) {
	t.Helper()
	s, run := startRun(t, cfg, st)
	drain(t, run.Events)
	if cancelled, err := run.Wait(); cancelled || err != nil {
		t.Fatalf("run: cancelled %v, %v", cancelled, err)
	}
	calls, tokens := run.Counts()
	info := run.Info()
	if info.Calls != calls || info.Tokens != tokens {
		t.Fatalf("record %+v %+v, runner %+v %+v", info.Calls, info.Tokens, calls, tokens)
	}
	return s, info
}

// storedInfo reads a run's record back as another process would.
func storedInfo(t *testing.T, st *store.Shared, id string) report.RunInfo {
	t.Helper()
	info, _, _, err := st.RunPage(id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	return info
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// A run records per task what the judge served and reported, priced at the
// test's prices.json; a second run of the same samples is answered by the
// cache: nothing sent, every call a hit, cost 0. Both directly and with the
// run's store a client of another process's holder.
func TestRunRecordsWhatTheJudgeReported(t *testing.T) {
	for _, through := range []string{"own store", "holder socket"} {
		t.Run(through, func(t *testing.T) {
			srv := fakejudge.New(fakejudge.Generic)
			defer srv.Close()
			tp := newUsageTap(t, srv.URL)
			path := filepath.Join(t.TempDir(), "r.db")
			holder := openShared(t, path, store.Hold)
			st := holder
			if through == "holder socket" {
				if st = openShared(t, path, store.Hold); st.Holding() {
					t.Fatal("the second store holds the database too")
				}
			}
			cfg := costConfig(smallDataset(t, 6), tp.URL+"/v1", "cost-test-judge", writePrices(t))
			_, first := runToEnd(t, cfg, st)

			served := tp.served()
			if len(served) != 6 {
				t.Fatalf("the judge served tasks %v, want the six tasks of the four metrics", served)
			}
			if got := recordedTasks(t, first); !equalUsage(got, served) {
				t.Fatalf("recorded per task %+v\nthe judge served %+v", got, served)
			}
			want := 0.0
			for task, u := range served {
				if task == eval.TaskEmbeddings {
					want += float64(u.PromptTokens) * 0.25 / 1e6
				} else {
					want += (float64(u.PromptTokens)*1.5 + float64(u.CompletionTokens)*6) / 1e6
				}
			}
			if first.CostUSD == nil || !near(*first.CostUSD, want) || want == 0 {
				t.Fatalf("cost %v, want %v", first.CostUSD, want)
			}
			if p := first.Pricing; p == nil || !strings.Contains(p.Table, "prices.json (2026-01-02)") || p.Chat == nil || p.Chat.Prompt != 1.5 {
				t.Fatalf("pricing %+v", first.Pricing)
			}

			cfg2 := *cfg
			_, second := runToEnd(t, &cfg2, st)
			if again := tp.served(); !equalUsage(again, served) {
				t.Fatalf("the cached run reached the judge: %+v, was %+v", again, served)
			}
			for task, u := range recordedTasks(t, second) {
				s := served[task]
				if u.Sent() != 0 || u.PromptTokens != 0 || u.CompletionTokens != 0 || u.CacheHits != s.Sent() {
					t.Errorf("cached run, %s: %+v; want nothing sent and %d hits", task, u, s.Sent())
				}
			}
			if second.CostUSD == nil || *second.CostUSD != 0 || second.CostText() != "$0" {
				t.Fatalf("cached run cost %v (%q), want 0", second.CostUSD, second.CostText())
			}
			for _, m := range eval.DefaultMetrics {
				if c := second.Usage[m].CostUSD; c == nil || *c != 0 {
					t.Errorf("cached run, %s cost %v", m, c)
				}
			}
			var js bytes.Buffer
			if _, err := runreport.Write(st, first.ID, runreport.FormatJSON, 0, report.Levels{}, &js); err != nil {
				t.Fatal(err)
			}
			var rep struct {
				Run report.RunInfo `json:"run"`
			}
			if err := json.Unmarshal(js.Bytes(), &rep); err != nil || !sameCost(rep.Run, first) {
				t.Errorf("the JSON report's run: %v\n%s", err, js.Bytes()[:min(js.Len(), 2000)])
			}
			// What the holder stored is what the run stamped.
			for _, info := range []report.RunInfo{first, second} {
				if got := storedInfo(t, holder, info.ID); !sameCost(got, info) {
					t.Errorf("stored %+v\nstamped %+v", got, info)
				}
			}
		})
	}
}

func equalUsage(a, b map[string]eval.TaskUsage) bool {
	if len(a) != len(b) {
		return false
	}
	for k, u := range a {
		v := b[k]
		if u.Chat != v.Chat || u.Embeddings != v.Embeddings || u.CacheHits != v.CacheHits || u.Usage != v.Usage {
			return false
		}
	}
	return true
}

func sameCost(a, b report.RunInfo) bool {
	ja, _ := json.Marshal([]any{a.Calls, a.Tokens, a.Usage, a.CostUSD, a.Pricing, a.UsagePartial})
	jb, _ := json.Marshal([]any{b.Calls, b.Tokens, b.Usage, b.CostUSD, b.Pricing, b.UsagePartial})
	return bytes.Equal(ja, jb)
}

// A model the table does not price makes the cost null, and the run says
// which model to add; the offline judge costs 0 and says so.
func TestCostWithoutAPrice(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	data := smallDataset(t, 3)
	tests := []struct {
		name     string
		cfg      *Config
		cost     string // CostText
		note     string
		nullCost bool
	}{
		{"unpriced chat model", costConfig(data, srv.BaseURL(), "nobody-prices-this-v1", writePrices(t)),
			"—", "no price for nobody-prices-this-v1 (add it to prices.json)", true},
		{"offline", offlineConfig(data, false), "$0", "offline judge: no cost", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
			s, info := runToEnd(t, tt.cfg, st)
			if (info.CostUSD == nil) != tt.nullCost || info.CostText() != tt.cost || info.Pricing.Note() != tt.note {
				t.Fatalf("cost %v %q, note %q", info.CostUSD, info.CostText(), info.Pricing.Note())
			}
			if tt.nullCost {
				if !strings.Contains(s.Banner, tt.note) {
					t.Errorf("the banner does not say so before the run: %q", s.Banner)
				}
				// Embeddings have a price: answer relevancy's cost is null
				// only through its chat task.
				ar := info.Usage[eval.AnswerRelevancy]
				if ar.CostUSD != nil || ar.Tasks[eval.TaskEmbeddings].CostUSD == nil {
					t.Errorf("answer relevancy %+v", ar)
				}
				js, _ := json.Marshal(storedInfo(t, st, info.ID))
				if !bytes.Contains(js, []byte(`"cost_usd":null`)) || !bytes.Contains(js, []byte(`"unpriced":["nobody-prices-this-v1"]`)) {
					t.Errorf("stored record: %s", js)
				}
			}
			var md, sum bytes.Buffer
			rep, err := runreport.Write(st, info.ID, runreport.FormatMarkdown, 0, report.Levels{}, &md)
			if err != nil {
				t.Fatal(err)
			}
			WriteSummary(&sum, rep.Info, rep.Tally)
			for what, out := range map[string]string{"summary": sum.String(), "markdown report": md.String()} {
				if !strings.Contains(out, tt.note) {
					t.Errorf("the %s lacks %q:\n%s", what, tt.note, out)
				}
			}
		})
	}
}

// A prices.json that does not parse stops the run before it starts,
// naming the file; the offline judge, which needs no prices, runs.
func TestMalformedPricesRefuseTheRun(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	bad := filepath.Join(t.TempDir(), "prices.json")
	if err := os.WriteFile(bad, []byte(`{"models": {"x": {"prompt": "cheap"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	data := smallDataset(t, 1)
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	for _, path := range []string{bad, filepath.Join(t.TempDir(), "missing.json")} {
		_, err := Prepare(parsed(t, costConfig(data, srv.BaseURL(), "cost-test-judge", path)), st, io.Discard)
		var ue exit.UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), path) {
			t.Errorf("--prices %s: %v; want a usage error naming the file", path, err)
		}
	}
	off := offlineConfig(data, false)
	off.Prices = bad
	if s, err := Prepare(parsed(t, off), st, io.Discard); err != nil {
		t.Errorf("offline: %v", err)
	} else {
		s.Close()
	}
}

// --resume adds what the resumed part used to what the earlier attempt
// recorded; an attempt killed before its end recorded nothing, and the
// record says its totals are a floor.
func TestResumeAddsToTheEarlierUsage(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	data := smallDataset(t, 8)
	prices := writePrices(t)
	_, full := runToEnd(t, costConfig(data, srv.BaseURL(), "cost-test-judge", prices), st)
	_, results, err := st.Run(full.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name   string
		killed bool
	}{{"cancelled", false}, {"killed", true}} {
		t.Run(tt.name, func(t *testing.T) {
			earlier := full
			earlier.ID = "20261201-000000-" + tt.name
			earlier.Cancelled = true
			if tt.killed {
				earlier.FinishedAt, earlier.Cancelled = nil, false
			}
			if err := st.PutRun(earlier); err != nil {
				t.Fatal(err)
			}
			if err := st.PutResults(earlier.ID, results[:4]); err != nil {
				t.Fatal(err)
			}
			cfg := costConfig(data, srv.BaseURL(), "cost-test-judge", prices)
			cfg.Resume = earlier.ID
			s, err := Prepare(parsed(t, cfg), st, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			run, err := s.Start(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			drain(t, run.Events)
			if _, err := run.Wait(); err != nil {
				t.Fatal(err)
			}
			calls, _ := run.Counts()
			got := storedInfo(t, st, earlier.ID)
			if got.Calls.CacheHits != full.Calls.CacheHits+calls.CacheHits || got.Calls.Chat != full.Calls.Chat || calls.CacheHits == 0 {
				t.Fatalf("resumed record %+v; earlier %+v, resumed part %+v", got.Calls, full.Calls, calls)
			}
			tasks := recordedTasks(t, got)
			for task, u := range recordedTasks(t, full) {
				if tasks[task].Chat != u.Chat || tasks[task].PromptTokens != u.PromptTokens || tasks[task].CacheHits <= u.CacheHits {
					t.Errorf("%s: resumed %+v, earlier %+v", task, tasks[task], u)
				}
			}
			if got.CostUSD == nil || !near(*got.CostUSD, *full.CostUSD) {
				t.Errorf("cost %v, want the earlier %v (the resumed part was cached)", got.CostUSD, *full.CostUSD)
			}
			if got.UsagePartial != tt.killed || strings.HasSuffix(got.CostText(), "+") != tt.killed {
				t.Errorf("usage_partial %v, cost %q", got.UsagePartial, got.CostText())
			}
		})
	}
}

// A re-run's record counts the re-run alone, not its parent's calls.
func TestRerunCountsItsOwnCalls(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	s := newTestSession(t, srv, smallDataset(t, 4), t.TempDir())
	parent := s.Info()
	if parent.Usage == nil || parent.CostText() == "" {
		t.Fatalf("the parent run recorded no usage: %+v", parent)
	}
	h := NewHost(s)
	run, err := h.rerun(context.Background(), tui.Plan{Indexes: []int{1}, Metrics: eval.DefaultMetrics})
	if err != nil {
		t.Fatal(err)
	}
	drain(t, run.Events)
	if _, err := run.Wait(); err != nil {
		t.Fatal(err)
	}
	info := run.Info()
	calls, tokens := run.Counts()
	if info.Calls != calls || info.Tokens != tokens || calls.Sent() != 0 || calls.CacheHits == 0 || calls.CacheHits >= parent.Calls.Sent() {
		t.Fatalf("re-run record %+v, runner %+v, parent %+v", info.Calls, calls, parent.Calls)
	}
	hits := 0
	for _, mu := range info.Usage {
		hits += mu.CacheHits
	}
	if hits != calls.CacheHits || info.CostUSD == nil || *info.CostUSD != 0 {
		t.Fatalf("re-run usage %+v, cost %v", info.Usage, info.CostUSD)
	}
}
