package cache

import (
	"context"
	"io"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/labels"
)

// Store is what the application needs of the database, whether this process
// holds the file (*DB) or another serves it (internal/holder's Client).
// Every write is durable when its call returns and idempotent, so a caller
// that loses its holder may repeat the call on the next one.
type Store interface {
	// Path is the database file.
	Path() string
	// ReadOnly reports a store that can only be read (a file opened
	// read-only): call-cache clients replay it.
	ReadOnly() bool
	Close() error

	// The run store.
	NewRunID() (string, error)
	PutRun(info report.RunInfo) error
	PutResult(runID string, r *eval.Result) error
	PutResults(runID string, rs []*eval.Result) error
	Runs() ([]report.RunInfo, error)
	Run(ref string) (report.RunInfo, []*eval.Result, error)
	// RunPage is Run a page at a time: the record and at most limit
	// results from sample index from on; next is -1 after the last.
	RunPage(ref string, from, limit int) (info report.RunInfo, page []*eval.Result, next int, err error)
	// RunSummaries is RunPage for a table of results (see DB.RunSummaries).
	RunSummaries(ref string, from, limit int, fn func(*eval.Result) error) (next int, err error)
	// DeleteRuns removes runs (exact ids) and their results; ids that are
	// not recorded are skipped. A holder refuses a run being evaluated.
	DeleteRuns(ids []string) (runs, results int, err error)
	// LiveUpdates waits for results or run records of runID stored after
	// position after (-1 answers at once with the current position); the
	// batch is empty when wait passes with nothing new.
	LiveUpdates(ctx context.Context, runID string, after int64, wait time.Duration) (LiveBatch, error)

	// The call cache. Lookups report a damaged entry as absent.
	LookupChat(key string) (eval.ChatResponse, bool, error)
	PutChat(key string, req eval.ChatRequest, resp eval.ChatResponse) error
	LookupEmbeddings(keys []string) ([][]float64, error)
	PutEmbeddings(req eval.EmbedRequest, texts []string, vecs [][]float64) error
	// Claim makes the caller the one that pays for the call with this key,
	// so that identical calls of any process sharing the database are sent
	// once: granted, it fetches, stores and calls release; otherwise Claim
	// waits until the claim is released and the caller looks the key up again.
	Claim(ctx context.Context, key string) (release func(), granted bool, err error)
	// Call is one cached call with its request, for the raw-call view; nil
	// when absent.
	Call(key string) (*CallEntry, error)

	// Human labels, keyed by labels.LabelKey (see labels.go). Labels(nil)
	// returns every label.
	PutLabels(ls []labels.Label) error
	DeleteLabels(keys []string) (int, error)
	Labels(keys []string) (map[string]labels.Label, error)

	// Maintenance.
	Stats() (Stats, error)
	Clear(olderThan time.Duration) (removed int, err error)
	Export(w io.Writer) (int, error)
	Import(r io.Reader) (int, error)

	// The state of log watchers (watchstate.go).
	WatchStore
}

// LiveBatch is what LiveUpdates returns.
type LiveBatch struct {
	// Seq is the position to pass to the next LiveUpdates.
	Seq int64 `json:"seq"`
	// Reset says the store cannot tell what changed since after (its log
	// was trimmed, or it is a new holder): reload the run.
	Reset bool `json:"reset,omitempty"`
	// Results are the run's results stored since after, in storing order.
	Results []*eval.Result `json:"results,omitempty"`
	// Run is the run record when it was stored since after.
	Run *report.RunInfo `json:"run,omitempty"`
}

var _ Store = (*DB)(nil)
