package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/prompts"
	"github.com/ragscope/ragscope/tui"
)

// defaultPromptsDir is where prompt overrides live when neither --prompts
// nor RAGSCOPE_PROMPTS names a directory: the TUI's first edit creates it,
// and later runs load it (the override shows in `prompts list` and in the
// run record).
func defaultPromptsDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ragscope", "prompts")
}

// host implements tui.Host over the session: prompt overrides, costed
// re-runs through the cache, and the run store.
type host struct {
	s   *session
	dir string // the override directory edits go to

	mu     sync.Mutex
	judge  *llm.Judge
	parent string // the run a re-run is based on: the latest one of this session
}

var _ tui.Host = (*host)(nil)

func newHost(s *session, judge *llm.Judge) *host {
	dir := s.f.promptsDir
	if dir == "" {
		dir = defaultPromptsDir()
	}
	return &host{s: s, dir: dir, judge: judge, parent: s.run.ID}
}

func (h *host) current() (*llm.Judge, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.judge, h.parent
}

func (h *host) Prompts() []prompts.Info {
	j, _ := h.current()
	return j.Prompts().List()
}

func (h *host) EditPath(task, lang string) (string, error) {
	if h.dir == "" {
		return "", errors.New("no directory for prompt overrides: pass --prompts DIR")
	}
	j, _ := h.current()
	path := filepath.Join(h.dir, prompts.FileName(task, lang))
	if _, err := os.Stat(path); err == nil {
		return path, nil
	}
	// First edit: start from the text in use, so the edit is a change of it.
	src, err := j.Prompts().Source(task, lang)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(h.dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

func (h *host) Reload(sample *eval.Result) error {
	set, err := prompts.Load(h.dir)
	if err != nil {
		return err
	}
	if sample != nil {
		d := prompts.Data{Question: sample.Question, Answer: sample.Answer, Reference: sample.Reference,
			Contexts: sample.Contexts, Statements: []string{"(statement)"}}
		if len(sample.Contexts) > 0 {
			d.Chunk, d.Rank = sample.Contexts[0], 1
		}
		if d.Reference == "" {
			d.Reference = "(reference)"
		}
		for _, in := range set.List() {
			if _, err := set.Render(in.Task, in.Lang, d); err != nil {
				return fmt.Errorf("rendering %s for sample %d: %w", prompts.FileName(in.Task, in.Lang), sample.Index, err)
			}
		}
	}
	h.mu.Lock()
	h.judge = h.judge.With(set, nil)
	h.mu.Unlock()
	return nil
}

func (h *host) samples(indexes []int) ([]eval.Sample, error) {
	out := make([]eval.Sample, 0, len(indexes))
	for _, i := range indexes {
		if i < 0 || i >= len(h.s.loaded.Samples) {
			return nil, fmt.Errorf("no sample %d in %s", i, h.s.run.Dataset)
		}
		out = append(out, h.s.loaded.Samples[i])
	}
	return out, nil
}

// Plan runs the judge over the samples against the cache alone: a hit is
// answered, a miss is counted (with its prompt tokens) and ends its chain,
// and the calls that would follow a miss are counted as misses too.
func (h *host) Plan(ctx context.Context, indexes []int, metrics []eval.Metric) (tui.Plan, error) {
	if h.s.db == nil || h.s.f.noCache {
		return tui.Plan{}, errors.New("costing a re-run needs the cache (it is off: --no-cache)")
	}
	samples, err := h.samples(indexes)
	if err != nil {
		return tui.Plan{}, err
	}
	j, _ := h.current()
	pc := &planClient{cc: h.s.db.Client(nil, cache.CacheOnly)}
	r := &eval.Runner{Judge: j.With(nil, pc), Config: eval.RunnerConfig{Metrics: metrics, Strictness: h.s.f.strictness, Workers: 8}}
	r.Run(ctx, samples)
	if ctx.Err() != nil {
		return tui.Plan{}, ctx.Err()
	}
	pc.mu.Lock()
	defer pc.mu.Unlock()
	return tui.Plan{Indexes: indexes, Metrics: metrics, Calls: pc.misses, Cached: pc.hits, Tokens: pc.tokens}, nil
}

type planClient struct {
	cc *cache.Client

	mu                   sync.Mutex
	hits, misses, tokens int
}

// errPlanned ends a chain whose call would be sent.
var errPlanned = errors.New("would be sent")

func (p *planClient) Chat(ctx context.Context, req eval.ChatRequest) (eval.ChatResponse, error) {
	resp, err := p.cc.Chat(ctx, req)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil {
		p.hits++
		return resp, nil
	}
	n := 0
	for _, m := range req.Messages {
		n += estimateTokens(m.Content)
	}
	p.misses++
	p.tokens += n
	switch req.Task {
	case prompts.TaskFaithfulnessStatements:
		// The verdict call that follows renders the statements with the
		// contexts: about as long again.
		p.misses++
		p.tokens += n
	case prompts.TaskAnswerRelevancyQuestion:
		p.misses++ // the embeddings of the new questions
	}
	return eval.ChatResponse{}, errPlanned
}

func (p *planClient) Embed(ctx context.Context, req eval.EmbedRequest) (eval.EmbedResponse, error) {
	resp, err := p.cc.Embed(ctx, req)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err == nil {
		p.hits++
		return resp, nil
	}
	p.misses++
	for _, t := range req.Texts {
		p.tokens += estimateTokens(t)
	}
	return eval.EmbedResponse{}, errPlanned
}

// estimateTokens is a rough count: a Han character is about one token,
// other text about four bytes a token.
func estimateTokens(s string) int {
	han, other := 0, 0
	for _, r := range s {
		if unicode.Is(unicode.Han, r) {
			han++
		} else {
			other++
		}
	}
	return han + (other+3)/4
}

// Rerun evaluates the planned samples and metrics as a new run whose parent
// is the session's latest run. The new run is complete: samples and metrics
// not re-run are copied from the parent, so reports and diffs of it need
// nothing else.
func (h *host) Rerun(ctx context.Context, plan tui.Plan) (string, <-chan eval.Event, error) {
	db := h.s.db
	if db == nil {
		return "", nil, errors.New("re-running needs the run store")
	}
	samples, err := h.samples(plan.Indexes)
	if err != nil {
		return "", nil, err
	}
	j, parentID := h.current()
	_, parent, err := db.Run(parentID)
	if err != nil {
		return "", nil, fmt.Errorf("loading the parent run %s: %w", parentID, err)
	}
	info := h.s.runInfo()
	info.ID = db.NewRunID()
	info.Parent = parentID
	info.StartedAt = time.Now().UTC()
	info.FinishedAt = nil
	info.Cancelled = false
	info.Prompts = j.Prompts().Hashes()
	info.Calls, info.Tokens = eval.CallCounts{}, eval.Usage{}
	info.Config = cloneConfig(info.Config)
	info.Config["rerun"] = fmt.Sprintf("%d samples, metrics %s", len(samples), joinMetrics(plan.Metrics))
	if err := db.PutRun(info); err != nil {
		return "", nil, err
	}
	rerun := map[int]bool{}
	for _, i := range plan.Indexes {
		rerun[i] = true
	}
	var keep []*eval.Result
	for _, r := range parent {
		if r != nil && !rerun[r.Index] {
			keep = append(keep, r)
		}
	}
	if err := db.PutResults(info.ID, keep); err != nil {
		return "", nil, err
	}
	events := make(chan eval.Event, 256)
	r := &eval.Runner{
		Judge:  j,
		Config: eval.RunnerConfig{Metrics: plan.Metrics, Strictness: h.s.f.strictness, Workers: 2 * h.s.f.concurrency, InFlight: h.s.sent},
		Events: events,
		OnResult: func(res *eval.Result) error {
			var base *eval.Result
			if res.Index < len(parent) {
				base = parent[res.Index]
			}
			// The event carries the merged result: the interface shows
			// complete samples, and the store holds the same.
			*res = *eval.Merge(base, res, plan.Metrics)
			return db.PutResult(info.ID, res)
		},
	}
	h.mu.Lock()
	h.parent = info.ID
	h.mu.Unlock()
	out := make(chan eval.Event, 256)
	go func() {
		defer close(out)
		done := make(chan struct{})
		go func() {
			r.Run(ctx, samples)
			close(done)
		}()
		for ev := range events {
			out <- ev
		}
		<-done
		now := time.Now().UTC()
		info.FinishedAt = &now
		info.Cancelled = r.Cancelled()
		info.Calls, info.Tokens = r.Counts()
		if err := db.PutRun(info); err != nil {
			fmt.Fprintln(h.s.log, "saving the re-run record:", err)
		}
	}()
	return info.ID, out, nil
}

func cloneConfig(c map[string]string) map[string]string {
	out := make(map[string]string, len(c)+1)
	for k, v := range c {
		out[k] = v
	}
	return out
}

func (h *host) Runs() ([]eval.RunInfo, error) { return sameDataset(h.s.db, h.s.runInfo()) }

func (h *host) Results(runID string) ([]*eval.Result, error) {
	_, rs, err := h.s.db.Run(runID)
	return rs, err
}

// storeHost serves `ragscope open`: a stored run can be compared with the
// other runs of its dataset, but editing and re-running need a judge, which
// a stored run does not have (its key is never stored).
type storeHost struct {
	db   *cache.DB
	info eval.RunInfo
}

var _ tui.ReadOnlyHost = storeHost{}

func (h storeHost) ReadOnly() string { return errStoredRun.Error() }

// errStoredRun says how to get the workflow for a stored run.
var errStoredRun = errors.New("a run opened with `ragscope open` can be compared (c) but not re-run: " +
	"run `ragscope run DATASET` with the judge settings to edit prompts and re-run")

func (h storeHost) Prompts() []prompts.Info { return nil }

func (h storeHost) EditPath(string, string) (string, error) { return "", errStoredRun }

func (h storeHost) Reload(*eval.Result) error { return errStoredRun }

func (h storeHost) Plan(context.Context, []int, []eval.Metric) (tui.Plan, error) {
	return tui.Plan{}, errStoredRun
}

func (h storeHost) Rerun(context.Context, tui.Plan) (string, <-chan eval.Event, error) {
	return "", nil, errStoredRun
}

func (h storeHost) Runs() ([]eval.RunInfo, error) { return sameDataset(h.db, h.info) }

func (h storeHost) Results(runID string) ([]*eval.Result, error) {
	_, rs, err := h.db.Run(runID)
	return rs, err
}

// sameDataset lists the stored runs of the run's dataset, newest first.
func sameDataset(db *cache.DB, info eval.RunInfo) ([]eval.RunInfo, error) {
	runs, err := db.Runs()
	if err != nil {
		return nil, err
	}
	var out []eval.RunInfo
	for _, r := range runs {
		if r.Dataset == info.Dataset || (r.DatasetHash != "" && r.DatasetHash == info.DatasetHash) {
			out = append(out, r)
		}
	}
	return out, nil
}
