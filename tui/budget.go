package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// The first run under --confirm-over: FirstRun.Estimate in a command;
// within the budget FirstRun.Start at once, else the cost page asks first.
// n, q or esc quit with no run sent or recorded.

// Cost is an estimate of the calls a run will send after cache hits, their
// tokens and their price, with the budget they were checked against.
type Cost struct {
	ByMetric []MetricCost // in the run's order
	Total    MetricCost
	// Budget is --confirm-over in US dollars, 0 when none. Over says the
	// estimate exceeds it (an unpriced model with calls exceeds every one).
	Budget   float64
	Over     bool
	Unpriced []string // the models called that have no price
	Summary  string   // the verdict in words, as headless mode prints it
	Prices   string   // the price table's name
}

// MetricCost is one line of an estimate.
type MetricCost struct {
	Metric                         eval.Metric
	Chat, Embeddings, CacheHits    int
	PromptTokens, CompletionTokens int
	USD                            *float64 // nil: a model it calls has no price
}

// FirstRun holds back the run the interface was opened for until its cost
// is known and, over the budget, the user has said y. Both may do I/O.
type FirstRun struct {
	Estimate func(ctx context.Context) (*Cost, error)   // sends nothing
	Start    func(ctx context.Context) (Started, error) // called at most once
}

// Started is the first run once FirstRun.Start has started it.
type Started struct {
	Events <-chan eval.Event // read until closed, like Run's events
	Cancel func()            // as Options.Cancel
	At     time.Time         // as Options.Started
}

// firstRunState is the first run not started yet.
type firstRunState struct {
	estimating bool
	cost       *Cost
	estErr     string // the estimate failed: nothing says the run is within the budget
	starting   bool   // y was answered; Start has not replied yet
	startErr   string
}

// estimateFirst costs the first run in a command.
func (m *Model) estimateFirst() tea.Cmd {
	f, ctx := m.opts.First, m.ctx
	return inCommand(func() (*Cost, error) { return f.Estimate(ctx) }, m.costed)
}

// startFirst is y on the cost page, or an estimate within the budget.
func (m *Model) startFirst() tea.Cmd {
	m.first.starting = true
	f, ctx := m.opts.First, m.ctx
	return inCommand(func() (Started, error) { return f.Start(ctx) }, m.firstStarted)
}

// costed takes the first run's estimate: within the budget the run
// starts, else the cost page asks.
func (m *Model) costed(c *Cost, err error) tea.Cmd {
	fr := m.first
	fr.estimating = false
	switch {
	case err != nil:
		fr.estErr = err.Error()
	case c == nil || !c.Over:
		cmd := m.startFirst() // the verdict goes to the status line
		if c != nil {
			m.setStatus(sanitize.Line(c.Summary))
		}
		return cmd
	default:
		fr.cost = c
	}
	return nil
}

// firstStarted follows the first run once Start has replied.
func (m *Model) firstStarted(run Started, err error) tea.Cmd {
	m.first.starting = false
	if err != nil {
		m.first.startErr = err.Error()
		return nil
	}
	m.first = nil
	m.screen = screenTable
	m.live = true
	m.opts.Started, m.opts.Cancel = run.At, run.Cancel
	m.events = run.Events
	m.syncRunKeys()
	return tea.Batch(m.stream(m.ctx, 0, run.Events), tick())
}

// startBlocked is why y does not start the run now, "" when it does.
func (m *Model) startBlocked() string {
	fr := m.first
	switch {
	case fr == nil:
		return "the run has started"
	case fr.estimating:
		return "the run's cost is still being estimated; q quits without a run"
	case fr.starting:
		return "the run is starting"
	case fr.startErr != "":
		return "the run could not start; q quits"
	}
	return ""
}

func (m *Model) budgetKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.StartRun):
		return m.startFirst()
	case key.Matches(msg, k.NoRun):
		return m.quit()
	}
	return nil
}

func (m *Model) budgetMode() keyMode {
	k := &m.keys
	km := keyMode{
		title:  "keys: cost of the run",
		footer: []*key.Binding{&k.StartRun, &k.NoRun, &k.Help, &k.ForceQuit},
		// NoRun is q too: the page lists it once, not again as Quit.
		page: [][]*key.Binding{{&k.StartRun, &k.NoRun}, {&k.Help, &k.ForceQuit}},
	}
	km.refuse(m.startBlocked(), &k.StartRun)
	return km
}

// renderBudget is the cost page: the estimate per metric and the question.
func (m *Model) renderBudget() []string {
	st, fr := m.st, m.first
	lines := []string{m.titleLine()}
	if m.opts.Banner != "" {
		lines = append(lines, st.muted.Render(truncate(sanitize.Line(m.opts.Banner), m.width, m.g.ellipsis)))
	}
	lines = append(lines, "")
	switch {
	case fr.estimating:
		lines = append(lines, st.muted.Render("  estimating the run's cost (calls after cache hits, tokens, price)"+m.g.ellipsis+" nothing is sent"))
	case fr.estErr != "":
		lines = append(lines, m.indented("cannot estimate the run, so nothing says it is within the budget: "+fr.estErr, st.errorLine)...)
	default:
		lines = slices.Concat(lines, m.costTable(fr.cost), []string{""}, m.indented(fr.cost.Summary, st.warn))
		if fr.cost.Prices != "" {
			lines = append(lines, m.indented("prices: "+fr.cost.Prices+"; retries and the verdict recount are not predicted (see ragscope estimate)", st.muted)...)
		}
	}
	lines = append(lines, "")
	switch {
	case fr.startErr != "":
		lines = append(lines, m.indented("cannot start the run: "+fr.startErr, st.errorLine)...)
	case fr.starting:
		lines = append(lines, st.muted.Render("  starting the run"+m.g.ellipsis))
	case !fr.estimating:
		lines = append(lines, m.indented("The run has not started. Start it? y starts it; n, q or esc quits without a run: nothing is sent and no run is recorded.", st.bold)...)
	}
	return m.finish(lines)
}

// costTable lays the estimate out as `ragscope estimate` does, in 80 cells.
func (m *Model) costTable(c *Cost) []string {
	st := m.st
	w := widest(c.ByMetric, len("metric"), func(mc MetricCost) int { return len(mc.Metric) })
	row := func(name string, mc MetricCost) string {
		return fmt.Sprintf("  %-*s  %6d  %6d  %6d  %8d  %10d  %9s", w, name, mc.Chat, mc.Embeddings, mc.CacheHits,
			mc.PromptTokens, mc.CompletionTokens, columnUSD(mc.USD))
	}
	lines := []string{
		st.header.Render(fmt.Sprintf("  %-*s  %s  %6s  %s  %9s", w, "", center("judge calls", 14), "cache", center("tokens", 20), "")),
		st.header.Render(fmt.Sprintf("  %-*s  %6s  %6s  %6s  %8s  %10s  %9s", w, "metric", "chat", "embed", "hits", "prompt", "completion", "cost")),
	}
	lines = append(lines, mapped(c.ByMetric, func(mc MetricCost) string { return row(string(mc.Metric), mc) })...)
	return append(lines, st.bold.Render(row("total", c.Total)))
}

// usdText is a cost as the interface shows it; "no price" names the gap.
func usdText(c *float64) string {
	if c == nil {
		return "no price"
	}
	return report.FormatUSD(*c)
}

// columnUSD is a cost in the table: four decimals as `ragscope estimate`
// prints them, less than that spelled out.
func columnUSD(c *float64) string {
	if c != nil && *c >= 0.0001 && *c < 10 {
		return fmt.Sprintf("$%.4f", *c)
	}
	return usdText(c)
}

// costWords is a re-run's price for its question, or why it has none.
func (m *Model) costWords(c *Cost) string {
	if c.Total.USD != nil {
		return usdText(c.Total.USD)
	}
	if len(c.Unpriced) > 0 {
		return "cost unknown (no price for " + sanitize.Line(strings.Join(c.Unpriced, ", ")) + ")"
	}
	return "cost unknown"
}

// center pads s on both sides to w cells.
func center(s string, w int) string {
	pad := max(w-len(s), 0)
	return strings.Repeat(" ", pad/2) + s + strings.Repeat(" ", pad-pad/2)
}
