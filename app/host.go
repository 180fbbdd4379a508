package app

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

// Host implements tui.Host over a session: prompt overrides, costed
// re-runs through the cache, and the run store.
type Host struct {
	s   *Session
	dir string // the override directory edits go to

	mu     sync.Mutex
	judge  *llm.Judge
	parent string // the run a re-run is based on: the latest one of this session
}

var _ tui.Host = (*Host)(nil)

// NewHost is the TUI's host for a session with an LLM judge and the cache;
// nil otherwise (the workflow is off, and the TUI says why).
func NewHost(s *Session) *Host {
	if s.LLM == nil || s.Cfg.NoCache {
		return nil
	}
	dir := s.Cfg.PromptsDir
	if dir == "" {
		dir = DefaultPromptsDir()
	}
	return &Host{s: s, dir: dir, judge: s.LLM, parent: s.Info().ID}
}

func (h *Host) current() (*llm.Judge, string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.judge, h.parent
}

func (h *Host) Prompts() []prompts.Info {
	j, _ := h.current()
	return j.Prompts().List()
}

func (h *Host) EditPath(task, lang string) (string, error) {
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
	if err := os.MkdirAll(h.dir, 0o700); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
		return "", err
	}
	return path, nil
}

func (h *Host) Reload(sample *eval.Result) error {
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

func (h *Host) samples(indexes []int) ([]eval.Sample, error) {
	all := h.s.Loaded.Samples
	out := make([]eval.Sample, 0, len(indexes))
	for _, i := range indexes {
		if i < 0 || i >= len(all) {
			return nil, fmt.Errorf("no sample %d in %s", i, h.s.Cfg.Dataset)
		}
		out = append(out, all[i])
	}
	return out, nil
}

// Plan runs the judge over the samples against the cache alone: a hit is
// answered, a miss is counted (with its prompt tokens) and ends its chain,
// and the calls that would follow a miss are counted as misses too.
func (h *Host) Plan(ctx context.Context, indexes []int, metrics []eval.Metric) (tui.Plan, error) {
	samples, err := h.samples(indexes)
	if err != nil {
		return tui.Plan{}, err
	}
	j, _ := h.current()
	pc := &planClient{cc: cache.NewClient(h.s.Store, nil, cache.CacheOnly)}
	r := &eval.Runner{Judge: j.With(nil, pc), Config: eval.RunnerConfig{Metrics: metrics, Strictness: h.s.Cfg.Strictness, Workers: 8}}
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
// nothing else; the events carry merged results.
func (h *Host) Rerun(ctx context.Context, plan tui.Plan) (string, <-chan eval.Event, error) {
	run, err := h.rerun(ctx, plan)
	if err != nil {
		return "", nil, err
	}
	return run.ID, run.Events, nil
}

func (h *Host) rerun(ctx context.Context, plan tui.Plan) (*Run, error) {
	st := h.s.Store
	samples, err := h.samples(plan.Indexes)
	if err != nil {
		return nil, err
	}
	j, parentID := h.current()
	_, parent, err := st.Run(parentID)
	if err != nil {
		return nil, fmt.Errorf("loading the parent run %s: %w", parentID, err)
	}
	info := h.s.Info()
	if info.ID, err = st.NewRunID(); err != nil {
		return nil, err
	}
	info.Parent = parentID
	info.StartedAt = time.Now().UTC()
	info.FinishedAt = nil
	info.Cancelled = false
	info.Prompts = j.Prompts().Hashes()
	info.Calls, info.Tokens = eval.CallCounts{}, eval.Usage{}
	info.Config = cloneConfig(info.Config)
	info.Config["rerun"] = fmt.Sprintf("%d samples, metrics %s", len(samples), joinMetrics(plan.Metrics))
	rerun := map[int]bool{}
	for _, i := range plan.Indexes {
		rerun[i] = true
	}
	var carry []*eval.Result
	for _, r := range parent {
		if r != nil && !rerun[r.Index] {
			carry = append(carry, r)
		}
	}
	run, err := h.s.launch(ctx, runSpec{
		info: info, judge: j, samples: samples, metrics: plan.Metrics, carry: carry,
		merge: func(res *eval.Result) *eval.Result {
			var base *eval.Result
			if res.Index < len(parent) {
				base = parent[res.Index]
			}
			return eval.Merge(base, res, plan.Metrics)
		},
	})
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	h.parent = info.ID
	h.mu.Unlock()
	return run, nil
}

func cloneConfig(c map[string]string) map[string]string {
	out := make(map[string]string, len(c)+1)
	for k, v := range c {
		out[k] = v
	}
	return out
}

func (h *Host) Runs() ([]eval.RunInfo, error) { return sameDataset(h.s.Store, h.s.Info()) }

func (h *Host) Results(runID string) ([]*eval.Result, error) {
	_, rs, err := h.s.Store.Run(runID)
	return rs, err
}

// StoredHost serves `ragscope open`: a stored run can be compared with the
// other runs of its dataset, but editing and re-running need a judge, which
// a stored run does not have (its key is never stored).
type StoredHost struct {
	Store cache.Store
	Run   eval.RunInfo
}

var _ tui.ReadOnlyHost = StoredHost{}

func (h StoredHost) ReadOnly() string { return errStoredRun.Error() }

// errStoredRun says how to get the workflow for a stored run.
var errStoredRun = errors.New("a run opened with `ragscope open` can be compared (c) but not re-run: " +
	"run `ragscope run DATASET` with the judge settings to edit prompts and re-run")

func (h StoredHost) Prompts() []prompts.Info { return nil }

func (h StoredHost) EditPath(string, string) (string, error) { return "", errStoredRun }

func (h StoredHost) Reload(*eval.Result) error { return errStoredRun }

func (h StoredHost) Plan(context.Context, []int, []eval.Metric) (tui.Plan, error) {
	return tui.Plan{}, errStoredRun
}

func (h StoredHost) Rerun(context.Context, tui.Plan) (string, <-chan eval.Event, error) {
	return "", nil, errStoredRun
}

func (h StoredHost) Runs() ([]eval.RunInfo, error) { return sameDataset(h.Store, h.Run) }

func (h StoredHost) Results(runID string) ([]*eval.Result, error) {
	_, rs, err := h.Store.Run(runID)
	return rs, err
}

// sameDataset lists the stored runs of the run's dataset, newest first.
func sameDataset(st cache.Store, info eval.RunInfo) ([]eval.RunInfo, error) {
	runs, err := st.Runs()
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
