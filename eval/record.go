package eval

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragscope/ragscope/eval/internal/runctl"
)

// The call recorder travels in the context of one sample's evaluation:
// the instrumented client reports every call to it, so each result lists
// its calls and the runner counts them and emits events.

type recorderKey struct{}

// metricKey carries the metric whose step makes the calls below it, so
// that a call is billed to the metric that made it (see CallRecord.Metric).
type metricKey struct{}

func withMetric(ctx context.Context, m Metric) context.Context {
	return context.WithValue(ctx, metricKey{}, m)
}

// metricFrom is the metric whose step runs in ctx, "" outside the runner.
func metricFrom(ctx context.Context) Metric {
	m, _ := ctx.Value(metricKey{}).(Metric)
	return m
}

type recorder struct {
	sample int
	run    *runStats
	mu     sync.Mutex
	calls  []CallRecord

	pendingRetries map[string]int
}

// runStats are the run-wide counters, updated atomically from many goroutines.
type runStats struct {
	inFlight, retries, errors atomic.Int64
	all                       taskCounters // what the calls used
	tasks                     taskStats    // the same, per metric and task
	emit                      func(Event)
	// sent, when set, reports the requests actually on the wire (the
	// endpoint's concurrency slots); inFlight also counts calls queued for
	// a slot and cache lookups.
	sent func() int

	// abort stops the run with a cause; failFast stops it when its first
	// calls all fail one unrecoverable way (RunnerConfig.Unrecoverable).
	abort    func(error)
	failFast runctl.FailFast
}

// gauge is the in-flight figure events carry.
func (s *runStats) gauge() int {
	if s.sent != nil {
		return s.sent()
	}
	return int(s.inFlight.Load())
}

func (s *runStats) counts() (CallCounts, Usage) {
	u := s.all.load()
	return CallCounts{Chat: u.Chat, Embeddings: u.Embeddings, Retries: int(s.retries.Load()), CacheHits: u.CacheHits, Errors: int(s.errors.Load())}, u.Usage
}

func withRecorder(ctx context.Context, rec *recorder) context.Context {
	return context.WithValue(ctx, recorderKey{}, rec)
}

func recorderFrom(ctx context.Context) *recorder {
	rec, _ := ctx.Value(recorderKey{}).(*recorder)
	return rec
}

// ReportRetry is called by the retrying client before it waits to retry a
// call, so the run counts retries and the TUI can show them.
func ReportRetry(ctx context.Context, task string, err error, wait time.Duration) {
	rec := recorderFrom(ctx)
	if rec == nil {
		return
	}
	rec.run.retries.Add(1)
	// The retry belongs to the call in progress, recorded when it finishes;
	// with several calls of one task in flight the attribution is approximate.
	rec.mu.Lock()
	if rec.pendingRetries == nil {
		rec.pendingRetries = map[string]int{}
	}
	rec.pendingRetries[task]++
	rec.mu.Unlock()
	if rec.run.emit != nil {
		rec.run.emit(Event{Kind: EventRetry, Sample: rec.sample, Err: err.Error(), Wait: wait,
			Call: &CallRecord{Task: task}, InFlight: rec.run.gauge()})
	}
}

// ReportNotice tells the run's user something once (EventNotice): the
// endpoint's abilities as a call found them out.
func ReportNotice(ctx context.Context, text string) {
	rec := recorderFrom(ctx)
	if rec == nil || rec.run.emit == nil {
		return
	}
	rec.run.emit(Event{Kind: EventNotice, Sample: -1, Err: text, InFlight: rec.run.gauge()})
}

// Instrument wraps a client so that every call is recorded on the sample's
// recorder (if the context carries one) and counted for the run.
func Instrument(c ChatClient) ChatClient { return instrumented{c} }

type instrumented struct{ inner ChatClient }

func (c instrumented) Chat(ctx context.Context, req ChatRequest) (ChatResponse, error) {
	rec := recorderFrom(ctx)
	rec.start()
	start := time.Now()
	resp, err := c.inner.Chat(ctx, req)
	if rec == nil {
		return resp, err
	}
	key := resp.Key
	if key == "" {
		key = req.Key() // hashing the request is a tenth of a cached re-run: reuse the cache's
	}
	cr := CallRecord{Task: req.Task, Key: key, Cached: resp.Cached, Tokens: resp.Usage, LatencyMS: resp.LatencyMS, Metric: metricFrom(ctx)}
	if cr.LatencyMS == 0 && !resp.Cached {
		cr.LatencyMS = time.Since(start).Milliseconds()
	}
	cr.Reasoning = ReasoningPreview(resp)
	rec.finished(ctx, cr, err, false)
	return resp, err
}

func (c instrumented) Embed(ctx context.Context, req EmbedRequest) (EmbedResponse, error) {
	rec := recorderFrom(ctx)
	rec.start()
	resp, err := c.inner.Embed(ctx, req)
	if rec == nil {
		return resp, err
	}
	cr := CallRecord{Task: TaskEmbeddings, Cached: err == nil && resp.Cached == len(req.Texts), Tokens: resp.Usage, LatencyMS: resp.LatencyMS, Metric: metricFrom(ctx)}
	if len(req.Texts) > 0 {
		cr.Key = EmbedKey(req.Endpoint, req.Model, req.Dimensions, req.Texts[0])
	}
	rec.finished(ctx, cr, err, true)
	return resp, err
}

// start counts a call in flight; a nil recorder (no runner) counts nothing.
func (rec *recorder) start() {
	if rec != nil {
		rec.run.inFlight.Add(1)
	}
}

// finished records a call that ended and feeds fail-fast with it.
func (rec *recorder) finished(ctx context.Context, cr CallRecord, err error, embedding bool) {
	rec.run.inFlight.Add(-1)
	if err != nil {
		cr.Error, cr.Cancelled = err.Error(), cancelledCall(ctx, err)
	}
	rec.add(cr, embedding)
	rec.run.failFast.Outcome(err, cr.Cached)
}

// cancelledCall reports a call that failed because the run was stopped:
// its context is done, or the error says it was cancelled.
func cancelledCall(ctx context.Context, err error) bool {
	if errors.Is(ctx.Err(), context.Canceled) || errors.Is(err, context.Canceled) {
		return true
	}
	var se *StepError
	return errors.As(err, &se) && se.Status == StatusCancelled
}

func (rec *recorder) add(cr CallRecord, embedding bool) {
	rs := rec.run
	if cr.Error != "" && !cr.Cancelled {
		rs.errors.Add(1)
	}
	rs.all.add(usageOfCall(cr, embedding))
	rec.mu.Lock()
	cr.Retries = rec.pendingRetries[cr.Task]
	delete(rec.pendingRetries, cr.Task)
	rec.calls = append(rec.calls, cr)
	rec.mu.Unlock()
	if rs.emit != nil {
		c := cr
		rs.emit(Event{Kind: EventCall, Sample: rec.sample, Call: &c, InFlight: rs.gauge()})
	}
}
