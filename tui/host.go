package tui

import (
	"context"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/prompts"
)

// Host is what the interface asks of the application for the prompt
// workflow (edit a judge prompt, re-run, compare). The CLI implements it
// over the engine, the cache and the run store; tests use a fake. All its
// methods may do I/O, so the model calls them only from tea.Cmds, never
// from Update. A nil Host (offline judge, stored run without an endpoint)
// turns the workflow off, and the keys say why.
type Host interface {
	// Prompts lists the templates in use: task, language, source
	// (embedded or override), file and sha256.
	Prompts() []prompts.Info
	// EditPath returns the override file for a template, creating it from
	// the embedded text on first edit, so $EDITOR always opens a real file.
	EditPath(task, lang string) (string, error)
	// ResetPrompt puts the built-in template of task.lang back in use, as
	// `ragscope prompts reset` does: its override file and any draft of it
	// are removed, then the overrides are re-read. A reset that could not
	// be put into use says so; the files are gone either way.
	ResetPrompt(task, lang string) error
	// Reload re-reads the overrides and renders every template for the
	// sample as validation. On error the previous prompts stay in use and
	// the error names the file and line.
	Reload(sample *eval.Result) error
	// Plan counts what re-running the samples would cost: the judge calls
	// it would send after cache hits, their tokens and, when the Host can
	// price them, their cost against the budget (Plan.Cost).
	Plan(ctx context.Context, indexes []int, metrics []eval.Metric) (Plan, error)
	// Rerun re-runs the planned samples as a new run linked to the current
	// one (its parent) and streams the new results as events; the channel
	// is closed when the re-run ends. Each EventSampleFinished carries a
	// complete result, already merged with the parent's for the metrics
	// not re-run (eval.Merge(base, res, plan.Metrics)): the interface
	// shows it as it comes, with the parent's as the "before". Cancelling
	// ctx stops the re-run; the channel must still be closed.
	Rerun(ctx context.Context, plan Plan) (runID string, events <-chan eval.Event, err error)
	// Runs lists the stored runs of this dataset, newest first, for `c`.
	Runs() ([]report.RunInfo, error)
	// Results loads a stored run's results, indexed by sample, for comparing.
	Results(runID string) ([]*eval.Result, error)
}

// ReadOnlyHost is implemented by a Host that can compare stored runs but
// not edit prompts or re-run (a run opened from the store has no judge);
// ReadOnly says why, and the workflow keys other than compare show it.
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
	// Calls is the number of judge calls the re-run will send (cache misses);
	// Cached the number the cache will answer. Calls that depend on a
	// missed call (the verdicts after new statements) count as misses.
	Calls, Cached int
	// Tokens estimates the prompt tokens of the calls sent.
	Tokens int
	// Cost is the estimate behind the counts, priced; nil when the Host
	// has none, and the question then names calls and tokens only. Over
	// its budget, the question says so.
	Cost *Cost
}
