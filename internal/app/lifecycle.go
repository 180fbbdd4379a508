package app

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/eval/dataset"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/holder"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// Run is a run in progress. Its events must be read until the channel is
// closed (the runner blocks on them); the channel closes once the run's end
// is stamped in the store, and Wait returns the results.
type Run struct {
	ID     string
	Events <-chan eval.Event

	runner *eval.Runner
	store  cache.Store
	cancel context.CancelFunc
	done   chan struct{} // closed once info, stopped and err are set

	info    report.RunInfo
	stopped error
	err     error
}

// Stopped says why the run stopped on its own before its end (an
// unrecoverable judge failure, a result that could not be stored), once
// it has ended; nil otherwise.
func (r *Run) Stopped() error {
	<-r.done
	return r.stopped
}

// Cancel stops the run: finished samples are kept, the rest end cancelled.
func (r *Run) Cancel() { r.cancel() }

// Wait blocks until the run's end is recorded and returns whether it was
// cut short, and an error when the end could not be recorded. The results
// are in the store only, so that a run's memory does not grow with it.
func (r *Run) Wait() (bool, error) {
	<-r.done
	return r.info.Cancelled, r.err
}

// Info waits for the run's end and is its stamped record.
func (r *Run) Info() report.RunInfo {
	<-r.done
	return r.info
}

// Counts are the run's calls and tokens so far.
func (r *Run) Counts() (eval.CallCounts, eval.Usage) { return r.runner.Counts() }

// runSpec is what distinguishes a first run, a resumed run, a re-run and a
// stream; everything else about starting one is the same.
type runSpec struct {
	Stream
	judge    eval.Judge
	metrics  []eval.Metric
	criteria *criteria.Set                // scored beside metrics: a whole run's, or those a re-run's plan names
	done     func(index int) *eval.Result // an earlier attempt's results (--resume): re-emitted, not evaluated
	// carry are results stored into the new run before it starts: a
	// re-run's samples that are not re-run, so the run is complete.
	carry []*eval.Result
	// merge completes a fresh result before it is stored and emitted (a
	// re-run keeps the parent's metrics it did not re-run).
	merge func(*eval.Result) *eval.Result
	onEnd func(report.RunInfo) // sees the stamped record (the session keeps its run current)
}

// Start records the session's run, runs it and streams its events; the
// end is stamped as soon as the runner returns, not when a client lets go,
// so a finished run stays finished even if the process is killed after.
func (s *Session) Start(ctx context.Context) (*Run, error) {
	return s.launch(ctx, runSpec{
		Stream: Stream{Info: s.Info(), Source: s.source(), Total: s.Total()}, judge: s.Judge, metrics: s.Metrics, criteria: s.Criteria, done: s.doneLookup(),
		onEnd: func(info report.RunInfo) {
			s.mu.Lock()
			s.run = info
			s.mu.Unlock()
		},
	})
}

// Stream is a run whose samples the caller brings as they come (a
// watcher's window of a live log); Put and Stamp are optional.
type Stream struct {
	Info report.RunInfo
	// Source yields the samples; Total is how many are known at the start.
	Source eval.Source
	Total  int
	// Put stores a finished result instead of PutResult (a watcher stores
	// it with its log position in one transaction).
	Put func(runID string, r *eval.Result) error
	// Stamp completes the record before its end is stored (the run grew
	// while it ran).
	Stamp func(*report.RunInfo)
}

// StartStream records a run of the session's judge and metrics over the
// samples st brings, runs it and streams its events, as Start does.
func (s *Session) StartStream(ctx context.Context, st Stream) (*Run, error) {
	return s.launch(ctx, runSpec{Stream: st, judge: s.Judge, metrics: s.Metrics, criteria: s.Criteria})
}

// source is the session's samples (of its --sample subset): streamed from
// the dataset file (Stream), or those in memory.
func (s *Session) source() eval.Source {
	if s.Loaded.Samples == nil && s.Loaded.Count > 0 {
		path, opt, scanned := s.Cfg.Dataset, s.datasetOpt, s.Loaded
		return s.sampled(func(yield func(eval.Sample) bool) error {
			return dataset.Stream(path, opt, scanned, yield)
		})
	}
	return s.sampled(eval.SliceSource(s.Loaded.Samples))
}

// launch is the one way a run starts.
func (s *Session) launch(ctx context.Context, spec runSpec) (*Run, error) {
	st := s.Store
	info := spec.Info
	err := st.PutRun(info)
	if err == nil && len(spec.carry) > 0 {
		err = st.PutResults(info.ID, spec.carry)
	}
	if err != nil {
		return nil, fmt.Errorf("recording the run: %v", err)
	}
	live, _ := st.(liveRegistry)
	if live != nil {
		// Other processes see the run as being evaluated (not interrupted)
		// while it runs; a failure here costs only that label.
		_ = live.BeginRun(info.ID)
	}
	rctx, cancel := context.WithCancel(ctx)
	events := make(chan eval.Event, 1024)
	workers, ahead, text := s.Cfg.runnerLimits()
	r := &eval.Runner{
		Judge: spec.judge,
		Config: eval.RunnerConfig{Metrics: spec.metrics, Criteria: spec.criteria, Strictness: s.Cfg.Strictness, ACWeights: s.Cfg.Parsed.ACWeights,
			FCMode: s.Cfg.Parsed.FCMode, NSMode: s.Cfg.Parsed.NSMode, HistorySupport: s.Cfg.Parsed.HistorySupport,
			Workers: workers, StoreAhead: ahead, MaxTextInFlight: text, InFlight: s.sent, Unrecoverable: s.unrecoverable,
			Lasting: lasting},
		Events: events,
		Done:   spec.done,
		OnResults: func(rs []*eval.Result) error {
			if spec.merge != nil {
				// The event carries the merged result: clients show
				// complete samples, and the store holds the same.
				for _, res := range rs {
					*res = *spec.merge(res)
				}
			}
			if spec.Put == nil {
				return st.PutResults(info.ID, rs)
			}
			// A stream stores each result with what its caller keeps
			// beside it: all at once, so that the store commits them
			// together.
			errs := make([]error, len(rs))
			var wg sync.WaitGroup
			for i, res := range rs {
				wg.Go(func() { errs[i] = spec.Put(info.ID, res) })
			}
			wg.Wait()
			return cmp.Or(errs...)
		},
	}
	out := make(chan eval.Event, 64)
	run := &Run{ID: info.ID, Events: out, runner: r, store: st, cancel: cancel, done: make(chan struct{}), info: info}
	pub, _ := st.(progressPublisher)
	var started *startedSamples
	if pub != nil && live != nil {
		started = &startedSamples{m: map[int]holder.StartedSample{}}
		go publishProgress(pub, info.ID, r, s.sent, started, run.done)
	}
	go func() {
		// The stream ends only once the end is stamped: a client that sees
		// it close can read the finished run from the store.
		for ev := range events {
			// --log: the TUI owns the terminal, so errors and retries are
			// read there.
			s.logEvent(ev)
			started.note(&ev)
			out <- ev
		}
		<-run.done
		close(out)
	}()
	go func() {
		defer cancel()
		r.Stream(rctx, spec.Source, spec.Total)
		now := time.Now().UTC()
		info.FinishedAt = &now
		info.Cancelled = r.Cancelled()
		if !info.AttemptStartedAt.IsZero() {
			// A resumed run: this attempt's time is added to the earlier ones'.
			info.ElapsedMS += now.Sub(info.AttemptStartedAt).Milliseconds()
		}
		// Added, not set: a resumed run's record holds what its earlier
		// attempts used (a re-run's starts from nothing, see Host.rerun).
		calls, tokens := r.Counts()
		info.AddUsage(calls, tokens, r.Usage())
		info.PriceUsage()
		if spec.Stamp != nil {
			spec.Stamp(&info)
		}
		s.stampEndpoint(&info)
		err := st.PutRun(info)
		if err != nil {
			fmt.Fprintln(s.log, "saving the run record:", sanitize.Line(err.Error()))
			err = fmt.Errorf("saving the end of run %s: %v", info.ID, err)
		}
		if live != nil {
			_ = live.EndRun(info.ID)
		}
		if spec.onEnd != nil {
			spec.onEnd(info)
		}
		run.info, run.err, run.stopped = info, err, r.Err()
		close(run.done)
	}()
	return run, nil
}

// progressPublisher is implemented by stores that pass a run's progress on
// to the processes watching it.
type progressPublisher interface {
	SetProgress(id string, p holder.Progress)
}

// publishEvery is how often the progress of a run goes to its watchers:
// as often as their screens repaint.
const publishEvery = 250 * time.Millisecond

// startedSamples are the samples being evaluated, as the events say.
type startedSamples struct {
	mu sync.Mutex
	m  map[int]holder.StartedSample
}

// startedText bounds the texts of a started sample sent to watchers: a row
// shows the heads of its question and answer.
const startedText = 240

// note follows one event; a nil receiver does nothing.
func (ss *startedSamples) note(ev *eval.Event) {
	if ss == nil {
		return
	}
	ss.mu.Lock()
	defer ss.mu.Unlock()
	switch {
	case ev.Kind == eval.EventSampleStarted && ev.Result != nil:
		ss.m[ev.Sample] = holder.StartedSample{Index: ev.Sample, ID: head(ev.Result.ID, startedText),
			Question: head(ev.Result.Question, startedText), Answer: head(ev.Result.Answer, startedText), Started: ev.Time}
	case ev.Kind == eval.EventSampleFinished:
		delete(ss.m, ev.Sample)
	}
}

func (ss *startedSamples) list() []holder.StartedSample {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return slices.SortedFunc(maps.Values(ss.m), func(a, b holder.StartedSample) int { return a.Index - b.Index })
}

// head cuts s to at most n bytes, on a rune boundary.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// publishProgress tells the run's watchers how far it is, every
// publishEvery while it changes, until the run is done.
func publishProgress(pub progressPublisher, id string, r *eval.Runner, sent func() int, started *startedSamples, done <-chan struct{}) {
	tick := time.NewTicker(publishEvery)
	defer tick.Stop()
	var last *holder.Progress
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		calls, tokens := r.Counts()
		p := holder.Progress{Calls: calls, Tokens: tokens, Samples: started.list()}
		if sent != nil {
			p.InFlight = sent()
		}
		if last != nil && p.Calls == last.Calls && p.Tokens == last.Tokens && p.InFlight == last.InFlight && slices.Equal(p.Samples, last.Samples) {
			continue
		}
		last = &p
		pub.SetProgress(id, p)
	}
}

// liveRegistry is implemented by stores that tell other processes which
// runs are being evaluated right now.
type liveRegistry interface {
	BeginRun(id string) error
	EndRun(id string) error
}

func (s *Session) logEvent(ev eval.Event) {
	// The log is read with less and tail: what the judge said goes through
	// the sanitiser like everything else shown to a person.
	switch ev.Kind {
	case eval.EventError:
		where := fmt.Sprintf("sample %d: %s: ", ev.Sample, ev.Metric)
		if ev.Sample < 0 {
			where = "run: " // the run's own, no sample's
		}
		fmt.Fprintf(s.log, "%s %s%s\n", ev.Time.Format(time.RFC3339), where, sanitize.Line(ev.Err))
	case eval.EventRetry:
		fmt.Fprintf(s.log, "%s sample %d: retry %s in %s: %s\n", ev.Time.Format(time.RFC3339), ev.Sample, ev.Call.Task, ev.Wait.Round(time.Millisecond), sanitize.Line(ev.Err))
	case eval.EventNotice:
		fmt.Fprintf(s.log, "%s %s\n", ev.Time.Format(time.RFC3339), sanitize.Line(ev.Err))
	}
}
