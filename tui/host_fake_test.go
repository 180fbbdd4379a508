package tui

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/prompts"
)

// fakeHost records what the model asks and answers from its fields. Its
// methods run inside commands, which tests execute synchronously (drive)
// or teatest runs on its own goroutines, hence the lock.
type fakeHost struct {
	mu sync.Mutex

	list      []prompts.Info
	afterEdit []prompts.Info // what Prompts lists once Reload succeeded
	editPath  string
	editErr   error
	reloadErr error
	resetErr  error

	plan    Plan
	planErr error

	rerunID     string
	rerunEvents []eval.Event // as the runner emits them: results of the metrics re-run only
	rerunErr    error
	// current is the run a re-run descends from, as the real host's
	// session tracks it: each Rerun merges with it, then becomes it.
	current string

	runs       []report.RunInfo
	runsErr    error
	results    map[string][]*eval.Result
	resultsErr map[string]error

	// what was asked
	edited   []string
	reset    []string
	reloaded []*eval.Result
	planned  []Plan // Indexes and Metrics of each Plan call
	reran    []Plan
	loaded   []string
}

var _ Host = (*fakeHost)(nil)

func (h *fakeHost) Prompts() []prompts.Info {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.list)
}

func (h *fakeHost) EditPath(task, lang string) (string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.edited = append(h.edited, task+"."+lang)
	return h.editPath, h.editErr
}

// ResetPrompt lists task.lang as embedded again, as the real host does
// once the override is removed, unless it fails.
func (h *fakeHost) ResetPrompt(task, lang string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reset = append(h.reset, task+"."+lang)
	if h.resetErr != nil {
		return h.resetErr
	}
	for i, in := range h.list {
		if in.Task == task && in.Lang == lang {
			h.list[i] = embeddedInfo(task, lang)
		}
	}
	return nil
}

func (h *fakeHost) Reload(sample *eval.Result) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reloaded = append(h.reloaded, sample)
	if h.reloadErr == nil && h.afterEdit != nil {
		h.list = h.afterEdit
	}
	return h.reloadErr
}

func (h *fakeHost) Plan(_ context.Context, indexes []int, metrics []eval.Metric) (Plan, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.planned = append(h.planned, Plan{Indexes: slices.Clone(indexes), Metrics: slices.Clone(metrics)})
	p := h.plan
	p.Indexes, p.Metrics = slices.Clone(indexes), slices.Clone(metrics)
	return p, h.planErr
}

func (h *fakeHost) Rerun(_ context.Context, plan Plan) (string, <-chan eval.Event, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.reran = append(h.reran, plan)
	if h.rerunErr != nil {
		return "", nil, h.rerunErr
	}
	// As the real host does, the events carry complete results: the
	// parent's, with the re-run metrics replaced.
	parent := map[int]*eval.Result{}
	for _, r := range h.results[h.current] {
		if r != nil {
			parent[r.Index] = r
		}
	}
	ch := make(chan eval.Event, len(h.rerunEvents))
	for _, ev := range h.rerunEvents {
		if ev.Kind == eval.EventSampleFinished && ev.Result != nil {
			ev.Result = eval.Merge(parent[ev.Result.Index], ev.Result, plan.Metrics)
		}
		ch <- ev
	}
	close(ch)
	h.current = h.rerunID
	return h.rerunID, ch, nil
}

func (h *fakeHost) Runs() ([]report.RunInfo, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.runs), h.runsErr
}

func (h *fakeHost) Results(runID string) ([]*eval.Result, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.loaded = append(h.loaded, runID)
	if err := h.resultsErr[runID]; err != nil {
		return nil, err
	}
	r, ok := h.results[runID]
	if !ok {
		return nil, fmt.Errorf("run %s: not in the store", runID)
	}
	return r, nil
}

// drive runs a command and everything it leads to, synchronously, feeding
// each message back into the model, as the program would: what a command
// sends while it runs (a stream's batches, through the model's send)
// before what it returns. It stops at a command that produces nothing.
func drive(t testing.TB, m *Model, cmd tea.Cmd) {
	t.Helper()
	var sent []tea.Msg
	m.send = func(msg tea.Msg) { sent = append(sent, msg) }
	queue := []tea.Cmd{cmd}
	for steps := 0; len(queue) > 0; steps++ {
		if steps > 10000 {
			t.Fatal("commands do not settle")
		}
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msgs := []tea.Msg{c()}
		msgs, sent = append(sent, msgs...), nil
		for _, msg := range msgs {
			if batch, ok := msg.(tea.BatchMsg); ok {
				queue = append(queue, batch...)
				continue
			}
			if msg == nil {
				continue
			}
			_, next := m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// pressDrive presses keys and drives the command of each.
func pressDrive(t testing.TB, m *Model, keys ...string) {
	t.Helper()
	for _, k := range keys {
		_, cmd := m.Update(keyMsg(k))
		drive(t, m, cmd)
	}
}

// execRecorder stands in for tea.ExecProcess: it records the command the
// model would hand the terminal to and "runs" it by calling back with err.
type execRecorder struct {
	cmds []*exec.Cmd
	err  error
}

func (e *execRecorder) exec(c *exec.Cmd, cb tea.ExecCallback) tea.Cmd {
	e.cmds = append(e.cmds, c)
	return func() tea.Msg { return cb(e.err) }
}

// fixturePrompts lists every template as embedded.
func fixturePrompts() []prompts.Info {
	var out []prompts.Info
	for _, task := range prompts.Tasks {
		for _, lang := range prompts.Langs {
			out = append(out, embeddedInfo(task, lang))
		}
	}
	return out
}

func embeddedInfo(task, lang string) prompts.Info {
	return prompts.Info{Task: task, Lang: lang, Source: prompts.SourceEmbedded, SHA256: fmt.Sprintf("%x", sha256.Sum256([]byte(task+lang)))}
}

var errBoom = errors.New("boom")
