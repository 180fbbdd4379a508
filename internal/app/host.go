package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
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
	edit   *pendingEdit
}

var _ tui.Host = (*Host)(nil)

// SessionHost is the TUI's host for a session: the prompt workflow with an
// LLM judge and the cache; with --no-cache, comparing only (the keys say
// the cache is off); nil for the offline judge (the TUI says why).
func SessionHost(s *Session) tui.Host {
	if h := NewHost(s); h != nil {
		return h
	}
	if s.LLM != nil && s.Cfg.NoCache {
		return StoredHost{Store: s.Store, Run: s.Info(), Why: errNoCache}
	}
	return nil
}

// NewHost is the TUI's host for a session with an LLM judge and the cache;
// nil otherwise (see SessionHost).
func NewHost(s *Session) *Host {
	if s.LLM == nil || s.Cfg.NoCache {
		return nil
	}
	return &Host{s: s, dir: cmp.Or(s.Cfg.PromptsDir, DefaultPromptsDir()), judge: s.LLM, parent: s.Info().ID}
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

// EditPath is the override file the editor opens for task.lang: a draft
// left by a broken edit (which runs never load) is copied into it, so the
// user goes on from it; otherwise the first edit creates it from the text
// in use. Reload decides what becomes of it.
func (h *Host) EditPath(task, lang string) (string, error) {
	if h.dir == "" {
		return "", errors.New("no directory for prompt overrides: pass --prompts DIR")
	}
	j, _ := h.current()
	src, err := j.Prompts().Source(task, lang) // also checks task and lang
	if err != nil {
		return "", err
	}
	path := filepath.Join(h.dir, prompts.FileName(task, lang))
	draft := prompts.DraftPath(h.dir, task, lang)
	edit := &pendingEdit{task: task, lang: lang, path: path}
	b, err := os.ReadFile(draft)
	switch {
	case err == nil:
		// The draft stays until Reload accepts the edit: it is never lost.
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return "", err
		}
	case !errors.Is(err, fs.ErrNotExist):
		return "", err
	default:
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			if err := os.MkdirAll(h.dir, 0o700); err != nil {
				return "", err
			}
			if err := os.WriteFile(path, []byte(src), 0o600); err != nil {
				return "", err
			}
		} else if err != nil {
			return "", err
		}
	}
	h.mu.Lock()
	h.edit = edit
	h.mu.Unlock()
	return edit.path, nil
}

// ResetPrompt removes the override of task.lang and its draft with
// prompts.Reset, the code of `ragscope prompts reset`, then puts the
// directory's prompts into use as Reload does. An edit of that prompt in
// progress is forgotten: its file is gone.
func (h *Host) ResetPrompt(task, lang string) error {
	if h.dir == "" {
		return errors.New("no directory for prompt overrides: pass --prompts DIR")
	}
	if _, err := prompts.Reset(h.dir, task, lang); err != nil {
		return err
	}
	h.mu.Lock()
	if e := h.edit; e != nil && e.task == task && e.lang == lang {
		h.edit = nil
	}
	edit := h.edit
	h.mu.Unlock()
	set, err := prompts.Load(h.dir)
	if errors.Is(err, fs.ErrNotExist) {
		set, err = prompts.Embedded(), nil // no directory: nothing overrides
	}
	if err != nil {
		return fmt.Errorf("%s is reset on disk, but the prompts in use stay as they were until the directory loads:\n%w",
			prompts.FileName(task, lang), err)
	}
	h.use(set, edit)
	return nil
}

// pendingEdit is the override file the editor was given (path, in the
// override directory).
type pendingEdit struct{ task, lang, path string }

// Reload puts the prompts of the directory into use, or says why not. The
// file of the last EditPath is checked with the rest (parsed, vetted,
// test-rendered, and rendered for sample when given):
//   - identical to the built-in text: the override and any draft are
//     removed, so later updates of the built-in template are not hidden;
//   - good: it stays the override file, and a draft of it is removed;
//   - broken: it is kept in the draft and the override file goes back to
//     the text in use (removed if that is the built-in one), so no later
//     run loads the broken text.
func (h *Host) Reload(sample *eval.Result) error {
	h.mu.Lock()
	edit, j := h.edit, h.judge
	h.mu.Unlock()
	if edit != nil {
		b, err := os.ReadFile(edit.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			edit = nil // deleted in the editor: the directory says what is in use
		case err != nil:
			return err
		case prompts.IsEmbeddedText(b, edit.task, edit.lang):
			if _, err := prompts.Reset(h.dir, edit.task, edit.lang); err != nil {
				return err
			}
			edit = nil
		}
	}
	if edit == nil {
		set, err := prompts.Load(h.dir)
		if err == nil && sample != nil {
			_, _, err = renderSample(set, sample)
		}
		if err != nil {
			return err
		}
		h.use(set, nil)
		return nil
	}
	set, problems, err := prompts.Scan(h.dir)
	if err != nil {
		return err
	}
	draft := prompts.DraftPath(h.dir, edit.task, edit.lang)
	mine := false // whether the edited file is at fault
	var errs []error
	for _, p := range problems {
		errs = append(errs, p.Err)
		mine = mine || p.Path == edit.path
	}
	err = errors.Join(errs...)
	if err == nil && sample != nil {
		var task, lang string
		task, lang, err = renderSample(set, sample)
		mine = mine || task == edit.task && lang == edit.lang
	}
	if err != nil {
		if !mine {
			return err // another file is at fault: the edit is not moved
		}
		if rerr := h.keepDraft(j, edit, draft); rerr != nil {
			return errors.Join(err, rerr)
		}
		return fmt.Errorf("%w\nthe previous prompt stays in use; your edit is kept in %s — press e to fix it", err, draft)
	}
	if err := os.Remove(draft); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	h.use(set, edit)
	return nil
}

// use puts set into use; edit is what a Reload without a new EditPath
// checks.
func (h *Host) use(set *prompts.Set, edit *pendingEdit) {
	h.mu.Lock()
	h.judge = h.judge.With(set, nil)
	h.edit = edit
	h.mu.Unlock()
}

// keepDraft moves a broken edit of the override file into its draft and
// puts back the text in use: the override it was loaded from, or none.
func (h *Host) keepDraft(j *llm.Judge, edit *pendingEdit, draft string) error {
	b, err := os.ReadFile(edit.path)
	if err != nil {
		return err
	}
	if err := os.WriteFile(draft, b, 0o600); err != nil {
		return err
	}
	overridden := slices.ContainsFunc(j.Prompts().List(), func(in prompts.Info) bool {
		return in.Task == edit.task && in.Lang == edit.lang && in.Source == prompts.SourceOverride && in.Path == edit.path
	})
	if overridden {
		src, err := j.Prompts().Source(edit.task, edit.lang)
		if err != nil {
			return err
		}
		return os.WriteFile(edit.path, []byte(src), 0o600)
	}
	if err := os.Remove(edit.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// renderSample renders every template of set with the sample's data, so a
// template that fails only on real inputs is caught before it is used.
// It returns the task and language of the template that failed.
func renderSample(set *prompts.Set, sample *eval.Result) (task, lang string, err error) {
	d := prompts.Data{Question: sample.Question, Answer: sample.Answer, Reference: cmp.Or(sample.Reference, "(reference)"),
		Contexts: sample.Contexts, Statements: []string{"(statement)"}}
	if len(sample.Contexts) > 0 {
		d.Chunk, d.Rank = sample.Contexts[0], 1
	}
	for _, in := range set.List() {
		if _, err := set.Render(in.Task, in.Lang, d); err != nil {
			return in.Task, in.Lang, fmt.Errorf("rendering %s for sample %d: %w", prompts.FileName(in.Task, in.Lang), sample.Index, err)
		}
	}
	return "", "", nil
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

// Plan estimates the re-run as `ragscope estimate` does (Session.estimate),
// with the prompts in use now, so the calls counted are those the re-run
// will send after cache hits; it is checked against --confirm-over.
func (h *Host) Plan(ctx context.Context, indexes []int, metrics []eval.Metric) (tui.Plan, error) {
	samples, err := h.samples(indexes)
	if err != nil {
		return tui.Plan{}, err
	}
	j, _ := h.current()
	ms, crit, err := h.split(metrics)
	if err != nil {
		return tui.Plan{}, err
	}
	est, err := h.s.estimate(ctx, j.Prompts(), eval.SliceSource(samples), len(samples), ms, crit, nil)
	if err != nil {
		return tui.Plan{}, err
	}
	return tui.Plan{Indexes: indexes, Metrics: metrics, Calls: est.Calls.Chat + est.Calls.Embeddings, Cached: est.CacheHits,
		Tokens: est.Tokens.Prompt, Cost: h.s.tuiCost(est, metrics, "re-run")}, nil
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
	info.AttemptStartedAt, info.ElapsedMS = time.Time{}, 0 // a new run, not a resumed one
	info.FinishedAt, info.Cancelled = nil, false
	info.Prompts = j.Prompts().Hashes()
	info.ResetUsage()
	info.Config = maps.Clone(info.Config) // describe always made one
	info.Config["rerun"] = fmt.Sprintf("%d samples, metrics %s", len(samples), joinMetrics(plan.Metrics))
	rerun := map[int]bool{}
	for _, i := range plan.Indexes {
		rerun[i] = true
	}
	carry := slices.DeleteFunc(slices.Clone(parent), func(r *eval.Result) bool { return r == nil || rerun[r.Index] })
	metrics, crit, err := h.split(plan.Metrics)
	if err != nil {
		return nil, err
	}
	run, err := h.s.launch(ctx, runSpec{
		Stream: Stream{Info: info, Source: eval.SliceSource(samples), Total: len(samples)}, judge: j, metrics: metrics, criteria: crit, carry: carry,
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

// split parts a plan's names into metrics and the criteria of the
// session's file that it names (nil for none), in the file's order: a
// criterion is planned under its name, as it is scored. A name that is
// neither is refused.
func (h *Host) split(names []eval.Metric) ([]eval.Metric, *criteria.Set, error) {
	set := h.s.Criteria
	var metrics []eval.Metric
	for _, n := range names {
		switch {
		case set.Find(string(n)) != nil:
		case eval.Def(n) != nil:
			metrics = append(metrics, n)
		default:
			return nil, nil, fmt.Errorf("%q is neither a metric nor a criterion of this run", n)
		}
	}
	if len(metrics) == len(names) {
		return metrics, nil, nil
	}
	sub := *set
	sub.Criteria = slices.DeleteFunc(slices.Clone(set.Criteria), func(c *criteria.Criterion) bool { return !slices.Contains(names, eval.Metric(c.Name)) })
	return metrics, &sub, nil
}

func (h *Host) Runs() ([]report.RunInfo, error) { return sameDataset(h.s.Store, h.s.Info()) }

func (h *Host) Results(runID string) ([]*eval.Result, error) {
	_, rs, err := h.s.Store.Run(runID)
	return rs, err
}

// StoredHost serves `ragscope open` (Why is errStoredRun), and a run with
// --no-cache (errNoCache): runs can be compared, but editing and re-running
// need a judge and the cache, which a stored run (its key is never stored)
// and --no-cache do not have.
type StoredHost struct {
	Store cache.Store
	Run   report.RunInfo
	Why   error // why editing and re-running are off
}

var _ tui.ReadOnlyHost = StoredHost{}

func (h StoredHost) ReadOnly() string { return h.Why.Error() }

// errStoredRun says how to get the workflow for a stored run.
var errStoredRun = errors.New("a run opened with `ragscope open` can be compared (c) but not re-run: " +
	"run `ragscope run DATASET` with the judge settings to edit prompts and re-run")

// errNoCache says why a run with an LLM judge has no prompt editing and
// no re-runs: a re-run pays only for the calls an edit changed because the
// cache answers the others, and --no-cache turned the cache off.
var errNoCache = errors.New("prompt editing and re-runs are off with --no-cache (a re-run pays only for the calls an edit " +
	"changed because the cache answers the rest); comparing runs (c) works; run without --no-cache to edit and re-run")

func (h StoredHost) Prompts() []prompts.Info { return nil }

func (h StoredHost) EditPath(string, string) (string, error) { return "", h.Why }

func (h StoredHost) Reload(*eval.Result) error { return h.Why }

func (h StoredHost) ResetPrompt(string, string) error { return h.Why }

func (h StoredHost) Plan(context.Context, []int, []eval.Metric) (tui.Plan, error) {
	return tui.Plan{}, h.Why
}

func (h StoredHost) Rerun(context.Context, tui.Plan) (string, <-chan eval.Event, error) {
	return "", nil, h.Why
}

func (h StoredHost) Runs() ([]report.RunInfo, error) { return sameDataset(h.Store, h.Run) }

func (h StoredHost) Results(runID string) ([]*eval.Result, error) {
	_, rs, err := h.Store.Run(runID)
	return rs, err
}

// sameDataset lists the stored runs of the run's dataset, newest first.
func sameDataset(st cache.Store, info report.RunInfo) ([]report.RunInfo, error) {
	runs, err := st.Runs()
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(runs, func(r report.RunInfo) bool {
		return r.Dataset != info.Dataset && (r.DatasetHash == "" || r.DatasetHash != info.DatasetHash)
	}), nil
}

// PromptsDirDefault names the default override directory in messages, where
// "--prompts" would send the user looking for a flag they never passed.
const PromptsDirDefault = "prompt override dir (default)"

// LoadPromptsFrom is LoadPrompts whose errors name the directory's source:
// "--prompts" or PromptsDirDefault. A broken override comes with how to
// get rid of it.
func LoadPromptsFrom(dir, source string) (*prompts.Set, error) {
	if dir == "" {
		return prompts.Embedded(), nil
	}
	set, problems, err := prompts.Scan(dir)
	if err != nil {
		return nil, exit.UsageError{Err: fmt.Errorf("%s: %v", source, err)}
	}
	if len(problems) > 0 {
		var b strings.Builder
		fmt.Fprintf(&b, "%s: prompts: override directory %s:", source, dir)
		for _, p := range problems {
			b.WriteString("\n" + p.Err.Error())
		}
		b.WriteString("\nfix or delete the file(s), or run `ragscope prompts reset TASK` to use the built-in template again")
		return nil, exit.UsageError{Err: errors.New(b.String())}
	}
	return set, nil
}
