package eval

import (
	"context"
	"fmt"
	"math"
	"path"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/eval/internal/runctl"
)

// RunnerConfig shapes a run.
type RunnerConfig struct {
	// Metrics are the metrics run; none is DefaultMetrics unless Criteria
	// has some.
	Metrics []Metric
	// Criteria are a team's own criteria, run beside the metrics; each is
	// scored under its name like a metric (see criteria_run.go).
	Criteria *criteria.Set
	// Strictness is the number of questions answer relevancy draws (default 3).
	Strictness int
	// ACWeights are answer correctness's weights of factuality and
	// similarity; zero is DefaultACWeights.
	ACWeights [2]float64
	// HistorySupport decides which support found earlier in a
	// conversation counts for faithfulness ("" is HistoryChunks).
	HistorySupport HistorySupport
	// FCMode is factual correctness's mode (f1, precision or recall; ""
	// is DefaultFCMode) and NSMode noise sensitivity's (relevant or
	// irrelevant; "" is DefaultNSMode).
	FCMode, NSMode string
	// Workers is the number of samples evaluated at once; the client bounds
	// the requests, and more workers than slots keep the slots busy.
	Workers int
	// MaxTextInFlight, when positive, bounds the bytes of text of the
	// samples evaluated at once (one bigger than the bound runs alone): for a
	// judge whose memory grows with the text it reads (the offline judge), the
	// run's memory is then bounded by it, not by Workers times the largest
	// record.
	MaxTextInFlight int64
	// StoreAhead is how many more samples than Workers may be started
	// before the finished ones are stored (0: none). A store that commits the
	// results waiting together (one fsync) then commits up to
	// Workers+StoreAhead at a time instead of Workers per commit time. Results
	// are announced (EventSampleFinished) only once stored.
	StoreAhead int
	// InFlight, when set, reports the judge requests on the wire for the
	// events' gauge (the endpoint client knows; the runner only sees calls).
	InFlight func() int
	// Unrecoverable, when set, names the kind of a call error no retry will
	// cure (the endpoint unreachable, the key refused, the model unknown), ""
	// for any other: when the first calls all fail with one such kind, the
	// run stops at once instead of failing every sample slowly.
	Unrecoverable func(error) string
	// Lasting, when set, says which of those kinds a success before does
	// not make a fluke (credit spent, a key revoked): calls failing that
	// way many times in a row stop the run at any point. An endpoint that
	// went away may come back, and a run (or a watcher) goes on past it.
	Lasting func(kind string) bool
}

// Runner evaluates samples with a judge and streams events.
type Runner struct {
	Judge  Judge
	Config RunnerConfig
	// Events, when set, receives the event stream. Sends block: a consumer
	// must keep reading until the channel is closed by Run.
	Events chan<- Event
	// Done, when set, gives the result of a sample already finished (resume),
	// re-emitted instead of evaluated; nil for one to evaluate.
	Done func(index int) *Result
	// OnResults, when set, is given the finished results before their events
	// (the run store writes them durably here), those finished together at
	// once, so a store commits them at once.
	OnResults func([]*Result) error

	stats     runStats
	cancelled bool
	err       error
}

// Err says why the run stopped before its end on its own (an unrecoverable
// judge failure, a result that could not be stored), once Run has returned;
// nil when it ran to its end or was cancelled by its caller.
func (r *Runner) Err() error { return r.err }

// Counts returns the run's call counts and token usage so far.
func (r *Runner) Counts() (CallCounts, Usage) { return r.stats.counts() }

// Usage returns the run's usage so far per metric, each call billed to the
// metric whose step made it (see attributeShared), counted when its sample
// finishes.
func (r *Runner) Usage() map[Metric]MetricUsage { return r.stats.tasks.snapshot() }

// Run evaluates the samples and returns one result per sample, in order.
// When ctx is cancelled, samples already finished keep their results and
// every metric not finished ends with status cancelled. Run closes Events.
func (r *Runner) Run(ctx context.Context, samples []Sample) []*Result {
	results := make([]*Result, len(samples))
	_ = r.run(ctx, SliceSource(samples), len(samples), func(i int, res *Result) { results[i] = res })
	return results
}

// Source yields a run's samples in order and returns what stopped it
// early (a dataset that cannot be read any more), nil at its end. A source
// may be read once only: the dataset streams from its file.
type Source func(yield func(Sample) bool) error

// SliceSource is the source of samples in memory.
func SliceSource(samples []Sample) Source {
	return func(yield func(Sample) bool) error {
		for _, s := range samples {
			if !yield(s) {
				break
			}
		}
		return nil
	}
}

// Stream is Run over a source of total samples without keeping the
// results, so a run's memory does not grow with its samples. A source
// that fails stops the run (Err says why).
func (r *Runner) Stream(ctx context.Context, src Source, total int) {
	_ = r.run(ctx, src, total, nil)
}

func (r *Runner) run(ctx context.Context, src Source, total int, keep func(int, *Result)) error {
	cfg := r.Config
	if len(cfg.Metrics) == 0 && len(cfg.Criteria.Names()) == 0 {
		// Criteria alone are a run of them alone: a re-run of one.
		cfg.Metrics = DefaultMetrics
	}
	if cfg.Strictness <= 0 {
		cfg.Strictness = 3
	}
	if cfg.Workers <= 0 {
		cfg.Workers = 32
	}
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var emitMu sync.Mutex
	emit := func(e Event) {
		if r.Events == nil {
			return
		}
		if e.Time.IsZero() {
			e.Time = time.Now()
		}
		emitMu.Lock()
		r.Events <- e
		emitMu.Unlock()
	}
	r.stats.emit = emit
	r.stats.sent = cfg.InFlight
	var abortOnce sync.Once
	r.err = nil
	r.stats.abort = func(err error) {
		abortOnce.Do(func() {
			r.err = err
			stop(err)
			// An error of no metric is the run's own: clients show it in words.
			emit(Event{Kind: EventError, Sample: -1, Err: "the run stops: " + err.Error()})
		})
	}
	r.stats.failFast = runctl.FailFast{Kind: cfg.Unrecoverable, Lasting: cfg.Lasting, Abort: r.stats.abort}
	defer func() {
		if r.Events != nil {
			close(r.Events)
		}
	}()
	emit(Event{Kind: EventRunStarted, Sample: -1, Total: total})

	var cancelled atomic.Bool
	got := func(i int, res *Result) {
		if res.Interrupted() {
			cancelled.Store(true)
		}
		if keep != nil {
			keep(i, res)
		}
	}
	type job struct {
		i int
		s Sample
	}
	jobs := make(chan job)
	budget := runctl.NewBudget(cfg.MaxTextInFlight)
	// A finished result waits for the store without holding its worker: two
	// storers hand every result waiting to OnResults at once, one encoding
	// while the other's commit is on disk. A sample holds a slot and its text
	// stays counted until its result is stored, so the slots and the budget
	// bound the results waiting as well as those evaluated.
	type finished struct {
		j   job
		res *Result
	}
	slots := make(chan struct{}, cfg.Workers+max(cfg.StoreAhead, 0))
	waiting := make(chan finished, cap(slots))
	scored := cfg.scored()
	var storing sync.WaitGroup
	for range 2 {
		storing.Go(func() {
			batch := make([]finished, 0, cap(slots))
			rs := make([]*Result, 0, cap(slots))
			for f := range waiting {
				batch, rs = append(batch[:0], f), rs[:0]
			drain:
				for {
					select {
					case f, ok := <-waiting:
						if !ok {
							break drain
						}
						batch = append(batch, f)
					default:
						break drain
					}
				}
				for _, f := range batch {
					f.res.makeFinite()
					rs = append(rs, f.res)
				}
				r.store(rs)
				for _, f := range batch {
					r.announce(f.res, scored, emit)
					got(f.j.i, f.res)
					budget.Release(f.j.s.textBytes())
					<-slots
				}
				// Let the results go: the next batch may be smaller.
				clear(batch)
				clear(rs)
			}
		})
	}
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Go(func() {
			for j := range jobs {
				waiting <- finished{j, r.evalSample(ctx, &j.s, cfg, emit)}
			}
		})
	}
	i := 0
	err := src(func(s Sample) bool {
		defer func() { i++ }()
		if done := r.done(s.Index); done != nil {
			got(i, done)
			emit(Event{Kind: EventSampleFinished, Sample: s.Index, Result: done})
			return true
		}
		slots <- struct{}{}
		budget.Acquire(ctx, s.textBytes())
		jobs <- job{i, s}
		return true
	})
	close(jobs)
	wg.Wait()
	close(waiting)
	storing.Wait()
	if err != nil {
		// The samples already read finish first (their calls are paid
		// for); the rest were never read and stay unfinished, for --resume.
		r.stats.abort(fmt.Errorf("reading the dataset failed after %d samples: %w", i, err))
	}
	// A dataset that failed to read cut the run short as a stop does.
	r.cancelled = cancelled.Load() || err != nil
	emit(Event{Kind: EventRunFinished, Sample: -1, InFlight: 0})
	return err
}

func (r *Runner) done(index int) *Result {
	if r.Done == nil {
		return nil
	}
	return r.Done(index)
}

// Cancelled reports, once Run has returned, whether the run was cut short:
// some metric of some sample ended cancelled, or the dataset failed to read. A signal that arrives after
// the last sample finished does not make a finished run cancelled.
func (r *Runner) Cancelled() bool { return r.cancelled }

func (r *Runner) evalSample(ctx context.Context, s *Sample, cfg RunnerConfig, emit func(Event)) *Result {
	res := &Result{
		Index: s.Index, ID: s.ID, Question: s.Question, Answer: s.Answer,
		Contexts: orEmpty(s.Contexts), Reference: s.Reference,
		Scores: map[Metric]*float64{}, Status: map[Metric]Status{},
	}
	if s.IsConversation() {
		res.ConversationID, res.Turn = s.Conversation, s.Turn
		for _, t := range s.History {
			res.History = append(res.History, Turn{Turn: t.Turn, Question: t.Question, Answer: t.Answer})
		}
	}
	if ctx.Err() != nil {
		why := "the run was cancelled before this sample started"
		if cause := context.Cause(ctx); cause != nil && cause != ctx.Err() {
			why = "the run stopped before this sample started: " + cause.Error()
		}
		for _, m := range cfg.scored() {
			res.set(m, StatusCancelled, nil, why)
		}
		return res
	}
	// EventSampleStarted carries the sample's texts in a Result of its own,
	// with maps of its own, for a viewer to show while the sample runs (a
	// consumer must still accept one with no Result: older streams).
	started := *res
	started.Scores, started.Status = map[Metric]*float64{}, map[Metric]Status{}
	emit(Event{Kind: EventSampleStarted, Sample: s.Index, InFlight: r.stats.gauge(), Result: &started})
	rec := &recorder{sample: s.Index, run: &r.stats}
	sctx := withRecorder(ctx, rec)
	if s.IsConversation() {
		// The metrics judge the turn by its standalone question: a
		// follow-up's own words may have no subject.
		var standalone string
		res.Standalone, standalone = r.standalone(sctx, s, &cfg)
		if standalone != "" && standalone != s.Question {
			turn := *s
			turn.Question, turn.Asked = standalone, s.Question
			s = &turn
		}
	}
	// The metrics and criteria run concurrently, each into a partial
	// result of its own, merged once they are all done: no lock is shared
	// between samples or runners.
	scored := cfg.scored()
	parts := make([]*Result, len(scored))
	steps := make([]func() error, len(scored))
	for i, m := range scored {
		part := &Result{}
		parts[i] = part
		steps[i] = func() error {
			defer func() {
				if p := recover(); p != nil {
					part.fail(m, panicked(p))
				}
			}()
			if i >= len(cfg.Metrics) {
				runCriterion(withMetric(sctx, m), r.Judge, s, cfg.Criteria.Criteria[i-len(cfg.Metrics)], part)
			} else if why := unsupported(r.Judge, m); why != "" {
				part.set(m, StatusUnsupported, nil, why)
			} else {
				Def(m).Run(withMetric(sctx, m), r.Judge, s, &cfg, part)
			}
			return nil
		}
	}
	_ = together(steps...)
	for i, m := range scored {
		res.absorb(m, parts[i])
	}
	// A step interrupted by cancellation may surface as a judge or parse
	// error from a half-read reply; the user asked to stop, so say so.
	if ctx.Err() != nil {
		for m, st := range res.Status {
			if st != StatusOK && st.Failed() && st != StatusCacheMiss {
				res.Status[m] = StatusCancelled
				res.Errors[m] = "cancelled: " + res.Errors[m]
			}
		}
	}
	rec.mu.Lock()
	res.Calls = rec.calls
	rec.mu.Unlock()
	attributeShared(res.Calls, scored)
	for _, c := range res.Calls {
		r.stats.tasks.add(c.MetricOf(), c.Task, usageOfCall(c, c.Task == TaskEmbeddings))
	}
	return res
}

// standalone rewrites a conversation turn's question to stand alone: its
// trace, and the question the metrics run on ("" for the asked one). The
// call is billed to the run's first metric: it serves them all.
func (r *Runner) standalone(ctx context.Context, s *Sample, cfg *RunnerConfig) (*StandaloneTrace, string) {
	if len(s.History) == 0 {
		return &StandaloneTrace{Question: s.Question, Status: StatusOK, Reason: "the first turn of the conversation: nothing before it to lean on"}, ""
	}
	cj, ok := r.Judge.(ConversationJudge)
	if !ok {
		return &StandaloneTrace{Status: StatusUnsupported, Reason: standaloneUnsupported}, ""
	}
	if len(cfg.Metrics) > 0 {
		ctx = withMetric(ctx, cfg.Metrics[0])
	}
	q, err := cj.Standalone(ctx, s)
	if err != nil {
		return &StandaloneTrace{Status: StatusOf(err), Reason: err.Error() + "; the metrics ran on the question as asked"}, ""
	}
	if strings.TrimSpace(q) == "" {
		return &StandaloneTrace{Status: StatusParseError, Reason: "the judge returned an empty question; the metrics ran on the question as asked"}, ""
	}
	return &StandaloneTrace{Question: q, Status: StatusOK}, q
}

// scored are the names a result is scored under: the metrics, then the
// criteria.
func (cfg *RunnerConfig) scored() []Metric { return Scored(cfg.Metrics, cfg.Criteria.Names()) }

// unsupported is why the judge cannot compute m ("" when it can): a
// judge that does not implement MetricSupporter supports every metric.
func unsupported(j Judge, m Metric) string {
	if ms, ok := j.(MetricSupporter); ok {
		return ms.Unsupported(m)
	}
	return ""
}

// store hands finished results to OnResults. Results that cannot be stored
// (a full disk, a lost database) stop the run: every call after them would
// be paid for and lost.
func (r *Runner) store(rs []*Result) {
	if r.OnResults == nil || len(rs) == 0 {
		return
	}
	if err := r.OnResults(rs); err != nil {
		which := fmt.Sprintf("the result of sample %d", rs[0].Index)
		if len(rs) > 1 {
			which = fmt.Sprintf("the results of samples %d and %d more", rs[0].Index, len(rs)-1)
		}
		r.stats.abort(fmt.Errorf("storing %s failed, so no more judge calls are paid for: %w", which, err))
	}
}

// announce emits a stored result's events.
func (r *Runner) announce(res *Result, scored []Metric, emit func(Event)) {
	for _, m := range scored {
		if st, ok := res.Status[m]; ok && st.Failed() {
			emit(Event{Kind: EventError, Sample: res.Index, Metric: m, Err: string(st) + ": " + res.Errors[m]})
		}
	}
	emit(Event{Kind: EventSampleFinished, Sample: res.Index, Result: res, InFlight: r.stats.gauge()})
}

// absorb takes metric m's outcome and trace from a partial result.
func (r *Result) absorb(m Metric, part *Result) {
	st, ok := part.Status[m]
	if !ok {
		return
	}
	r.set(m, st, part.Scores[m], part.Errors[m])
	r.takeTrace(m, part)
}

// makeFinite keeps a result storable whatever a judge returned: JSON has
// no NaN, and a result that cannot be stored stops the run. A metric whose
// trace holds a non-finite number fails with a message instead (its score
// came through Result.set, which refuses a non-finite one).
func (r *Result) makeFinite() {
	bad := func(m Metric, what string) {
		r.set(m, StatusJudgeError, nil, "the judge produced a non-finite "+what)
	}
	finite := func(x *float64) bool {
		if math.IsNaN(*x) || math.IsInf(*x, 0) {
			*x = 0
			return false
		}
		return true
	}
	if tr := r.AnswerRelevancy; tr != nil {
		ok := finite(&tr.AnswerCosine)
		for i := range tr.Questions {
			ok = finite(&tr.Questions[i].Cosine) && ok
		}
		if !ok {
			bad(AnswerRelevancy, "cosine")
		}
	}
	if tr := r.AnswerSimilarity; tr != nil && !finite(&tr.Cosine) {
		bad(AnswerSimilarity, "cosine")
	}
	if tr := r.AnswerCorrectness; tr != nil && tr.Similarity != nil && !finite(tr.Similarity) {
		bad(AnswerCorrectness, "cosine")
	}
	for m, tr := range map[Metric]*ContextPrecisionTrace{ContextPrecision: r.ContextPrecision, ContextUtilization: r.ContextUtilization} {
		if tr == nil {
			continue
		}
		ok := true
		for i := range tr.Precisions {
			ok = finite(&tr.Precisions[i]) && ok
		}
		if !ok {
			bad(m, "precision")
		}
	}
}

// textBytes is the size of the sample's texts, what MaxTextInFlight counts.
func (s *Sample) textBytes() int64 {
	n := len(s.Question) + len(s.Answer) + len(s.Reference)
	for _, c := range s.Contexts {
		n += len(c)
	}
	return int64(n)
}

// panicked is a panic recovered from a judge or metric step as an error
// that says where it happened: a bug met on one sample fails that sample,
// not the run and every result not yet stored. Call it in the deferred
// function that recovered.
func panicked(p any) error {
	pcs := make([]uintptr, 32)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	at := ""
	for more := true; more && at == ""; {
		var f runtime.Frame
		if f, more = frames.Next(); f.Function != "" && !strings.HasPrefix(f.Function, "runtime.") {
			at = fmt.Sprintf(" at %s:%d", path.Join(path.Base(path.Dir(f.File)), path.Base(f.File)), f.Line)
		}
	}
	return fmt.Errorf("internal error%s: %v (a bug in ragscope: please report it with this sample)", at, p)
}
