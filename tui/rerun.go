package tui

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/prompts"
)

// Host is what the interface asks of the application for the prompt
// workflow (edit a judge prompt, re-run, compare). Its methods may do I/O:
// the model calls them from tea.Cmds only. A nil Host turns the workflow
// off, and the keys say why.
type Host interface {
	// Prompts lists the templates in use.
	Prompts() []prompts.Info
	// EditPath returns the override file for a template, creating it from
	// the embedded text on first edit.
	EditPath(task, lang string) (string, error)
	// ResetPrompt puts the built-in template of task.lang back in use, as
	// `ragscope prompts reset` does.
	ResetPrompt(task, lang string) error
	// Reload re-reads the overrides and renders every template for the
	// sample as validation; on error the previous prompts stay in use.
	Reload(sample *eval.Result) error
	// Plan counts what re-running the samples would cost.
	Plan(ctx context.Context, indexes []int, metrics []eval.Metric) (Plan, error)
	// Rerun re-runs the planned samples as a child run and streams its
	// results, each merged with the parent's for the metrics not re-run;
	// the channel is closed when the re-run ends, cancelled or not.
	Rerun(ctx context.Context, plan Plan) (runID string, events <-chan eval.Event, err error)
	// Runs lists the stored runs of this dataset, newest first, for `c`.
	Runs() ([]report.RunInfo, error)
	// Results loads a stored run's results, indexed by sample, for comparing.
	Results(runID string) ([]*eval.Result, error)
}

// ReadOnlyHost is a Host that can compare stored runs but not edit prompts
// or re-run; ReadOnly says why.
type ReadOnlyHost interface {
	Host
	ReadOnly() string
}

// readOnly is the reason the workflow is limited to comparing, or "".
func readOnly(h Host) string {
	if ro, ok := h.(ReadOnlyHost); ok {
		return ro.ReadOnly()
	}
	return ""
}

// Plan is a costed re-run.
type Plan struct {
	Indexes []int
	Metrics []eval.Metric
	// Calls will be sent (cache misses, and the calls that depend on one);
	// Cached the cache will answer.
	Calls, Cached int
	Tokens        int   // the prompt tokens of the calls sent
	Cost          *Cost // nil when the Host cannot price them
}

// A re-run goes: Host.Plan -> the question with its cost -> y ->
// Host.Rerun -> its stream, applied like the first run's; the parent's
// results are the comparison's "before".

// rerunState is the re-run in progress; quitting cancels ctx.
type rerunState struct {
	id       string
	gen      int
	ctx      context.Context
	cancel   context.CancelFunc
	plan     Plan
	started  bool // Host.Rerun answered; the stream runs
	progress progress
}

type planMsg struct {
	gen  int
	plan Plan
	err  error
}

type rerunStartedMsg struct {
	gen    int
	id     string
	events <-chan eval.Event
	err    error
}

// filteredIndexes are the samples R re-runs: those shown with a result.
func (m *Model) filteredIndexes() []int {
	out := make([]int, 0, len(m.shown))
	for _, p := range m.shown {
		if r := m.rows[p]; r.done {
			out = append(out, r.index)
		}
	}
	return out
}

// rerunSample is r in the detail page: the focused metric, or all.
func (m *Model) rerunSample() tea.Cmd {
	r := m.rows[m.detail.row]
	var metrics []eval.Metric
	if f := m.detail.focus; f != "" {
		metrics = []eval.Metric{f}
	}
	return m.planRerun([]int{r.index}, metrics)
}

// rerunBlocked says why a re-run cannot start now, or "".
func (m *Model) rerunBlocked() string {
	if why := m.promptsBlocked(); why != "" {
		return why
	}
	switch {
	case m.live:
		return "the run is still in progress; re-run when it has finished"
	case m.rerun != nil:
		p := m.rerun.progress
		return fmt.Sprintf("a re-run is in progress (%d/%d); wait for it to finish", p.done, p.total)
	case m.cmp != nil && m.cmp.picked:
		return "leave the comparison (esc) before re-running"
	}
	return ""
}

// planRerun asks the Host what the re-run would cost; nil metrics means
// every column.
func (m *Model) planRerun(indexes []int, metrics []eval.Metric) tea.Cmd {
	if metrics == nil {
		metrics = slices.Clone(m.columns)
	}
	m.gen++
	gen, h, ctx := m.gen, m.opts.Host, m.ctx
	m.setStatus("costing the re-run" + m.g.ellipsis)
	return func() tea.Msg {
		p, err := h.Plan(ctx, indexes, metrics)
		return planMsg{gen: gen, plan: p, err: err}
	}
}

// rerunQuestion is the confirmation: what is re-run and what it will cost.
func (m *Model) rerunQuestion(p Plan) string {
	scope := fmt.Sprintf("%d samples", len(p.Indexes))
	if len(p.Indexes) == 1 {
		scope = fmt.Sprintf("sample %d", p.Indexes[0])
	}
	what := "all metrics"
	if len(m.st.crit.names) > 0 {
		what = "all metrics and criteria"
	}
	if !sameMetrics(p.Metrics, m.columns) {
		what = strings.Join(mapped(p.Metrics, func(mt eval.Metric) string { return string(mt) }), ", ")
	}
	if p.Calls == 0 {
		return fmt.Sprintf("Re-run %s (%s)? No judge call will be sent: the cache answers all %d. [y/n]", scope, what, p.Cached)
	}
	c := p.Cost
	if c == nil {
		return fmt.Sprintf("Re-run %s (%s)? %d judge %s will be sent, ~%s prompt tokens; %d answered from the cache. [y/n]",
			scope, what, p.Calls, plural(p.Calls, "call", "calls"), approx(p.Tokens), p.Cached)
	}
	q := fmt.Sprintf("Re-run %s (%s)? %d judge %s will be sent, ~%s prompt and ~%s completion tokens, %s; %d answered from the cache.",
		scope, what, p.Calls, plural(p.Calls, "call", "calls"), approx(c.Total.PromptTokens), approx(c.Total.CompletionTokens),
		m.costWords(c), p.Cached)
	if c.Over {
		// The budget as the user typed it: $0.000001, not $1e-06.
		budget := "$" + strconv.FormatFloat(c.Budget, 'f', -1, 64)
		return q + " OVER --confirm-over " + budget + ": y starts it anyway, any other key cancels. [y/n]"
	}
	return q + " [y/n]"
}

// sameMetrics reports whether a and b hold the same metrics, in any order.
func sameMetrics(a, b []eval.Metric) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(x eval.Metric) bool { return !slices.Contains(b, x) })
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// approx rounds a token estimate to what an estimate is worth.
func approx(n int) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	case n >= 1000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%d", n)
}

// startRerun is y to a re-run's question: Host.Rerun in a command.
func (m *Model) startRerun(plan Plan) tea.Cmd {
	ctx, cancel := context.WithCancel(m.ctx)
	m.gen++
	m.rerun = &rerunState{gen: m.gen, ctx: ctx, cancel: cancel, plan: plan, progress: progress{total: len(plan.Indexes)}}
	gen, h := m.gen, m.opts.Host
	return func() tea.Msg {
		id, events, err := h.Rerun(ctx, plan)
		if err == nil && events != nil {
			// The program may quit before the stream starts: then this
			// drain keeps the engine from blocking.
			context.AfterFunc(ctx, func() { drain(events) })
		}
		return rerunStartedMsg{gen: gen, id: id, events: events, err: err}
	}
}

func (m *Model) rerunWorkflow(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case planMsg:
		if msg.gen != m.gen {
			return nil
		}
		m.clearStatus()
		if msg.err != nil {
			m.setError("cannot cost the re-run: " + msg.err.Error())
			return nil
		}
		if len(msg.plan.Indexes) == 0 {
			m.setError("the judge has nothing to re-run for these samples")
			return nil
		}
		plan := msg.plan
		m.askYesNo(&question{text: m.rerunQuestion(plan), over: plan.Cost != nil && plan.Cost.Over, answer: func(yes bool) tea.Cmd {
			if !yes {
				m.setStatus("re-run cancelled; nothing was sent")
				return nil
			}
			return m.startRerun(plan)
		}})
	case rerunStartedMsg:
		rr := m.rerun
		if rr == nil || msg.gen != rr.gen {
			return nil
		}
		if msg.err != nil {
			m.stopRerun()
			m.setError("cannot start the re-run: " + msg.err.Error())
			return nil
		}
		rr.id, rr.started = msg.id, true
		// The Δ column fills in as results arrive.
		m.setCompare(&compareState{baseID: m.runID, curID: msg.id, base: map[int]beforeSide{}, metrics: rr.plan.Metrics})
		return m.stream(rr.ctx, rr.gen, msg.events)
	}
	return nil
}

// finishRerun makes the re-run the current run: the next re-run is its
// child, and leaving the comparison keeps its results.
func (m *Model) finishRerun() {
	rr := m.rerun
	m.stopRerun()
	if rr.id != "" {
		m.runID = rr.id
	}
	p := rr.progress
	msg := fmt.Sprintf("re-run %s finished: %d of %d samples re-scored, %d calls sent, %d from the cache", rr.id, p.done, p.total, p.sent(), p.cacheHits)
	if p.errors > 0 {
		m.setError(msg + fmt.Sprintf(", %d failed calls (see the detail pages)", p.errors))
		return
	}
	m.setStatus(msg)
}

// stopRerun cancels a re-run when the program quits; its events keep
// being drained.
func (m *Model) stopRerun() {
	if rr := m.rerun; rr != nil {
		rr.cancel()
		m.rerun = nil
	}
}
