package tui

import (
	"context"

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
