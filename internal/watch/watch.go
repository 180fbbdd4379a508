// Package watch is `ragscope watch`: it follows JSON Lines logs and
// evaluates each appended record exactly once, into a rolling run per
// window, with alerts on a falling rolling mean.
package watch

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/cost"
	"github.com/ragscope/ragscope/eval/dataset"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/app"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/store"
)

// Config is what ragscope watch adds to a run's settings.
type Config struct {
	Logs   []string      // the LOG arguments: files, globs or directories
	Sample float64       // the fraction of records evaluated, by content hash (0 or 1: all)
	MaxRPS float64       // a cap on the records started per second (0: none)
	Window time.Duration // the length of a rolling run; 0 is a local calendar day
	// Alerts are --alert rules; AlertExec the command that hears of each
	// firing (JSON on stdin), killed after AlertTimeout (default 10 s).
	Alerts       []string
	AlertExec    string
	AlertTimeout time.Duration
	Once         bool          // read what the logs hold now, evaluate it and return
	Queue        int           // records read ahead of the judge at most (default 256); then reading waits
	Poll         time.Duration // how often the logs are looked at (default 250 ms)
}

// DefaultMetrics are the reference-free metrics a watcher uses when
// --metrics is not given: a live log has no reference answers.
const DefaultMetrics = "faithfulness,answer_relevancy,context_utilization"

// Watcher evaluates the records appended to logs, exactly once each,
// into a rolling run per window.
type Watcher struct {
	s      *app.Session
	fc     Config
	stream string
	dec    *dataset.LineDecoder
	stderr io.Writer
	prices cost.Table
	alerts *alerts
	tail   *tailer
	space  chan struct{}    // the consumer took a record: the queue has room
	clock  func() time.Time // the time windows are told by; tests move it
	execs  sync.WaitGroup   // the --alert-exec commands running, which a watcher that stops waits for

	mu       sync.Mutex
	status   report.WatchStatus
	flights  map[flightKey]flight
	lastWarn string
}

type flightKey struct {
	run string
	idx int
}

type flight struct {
	hash   string
	readAt time.Time
}

// qItem is a record taken, or the end of a window (end).
type qItem struct {
	rec cache.WatchRecord
	end bool
}

// Prepare sets a watcher up: flags checked, prompts and judge built;
// nothing is read or written yet.
func Prepare(cfg *app.Config, fc Config, st cache.Store, stderr io.Writer) (_ *Watcher, err error) {
	if len(fc.Logs) == 0 {
		return nil, exit.Usagef("give at least one LOG (a JSON Lines file, a glob such as 'logs/app.jsonl*', or a directory), e.g. ragscope watch --headless logs/app.jsonl")
	}
	for _, p := range fc.Logs {
		// A log not written yet is followed once it appears; a directory
		// that is not there is a typo, which would follow nothing forever.
		dir := filepath.Dir(p)
		if strings.ContainsAny(dir, "*?[") {
			continue
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, exit.Usagef("LOG %s: there is no directory %s — check the path", p, dir)
		}
	}
	if !(fc.Sample >= 0 && fc.Sample <= 1) {
		return nil, exit.Usagef("--sample %g: give the fraction of records to evaluate, more than 0 and at most 1 (e.g. 0.1)", fc.Sample)
	}
	if !(fc.MaxRPS >= 0) || math.IsInf(fc.MaxRPS, 0) {
		return nil, exit.Usagef("--max-rps %g: give 0 (no cap) or more records per second", fc.MaxRPS)
	}
	if fc.Window < 0 || (fc.Window > 0 && fc.Window < time.Minute) {
		return nil, exit.Usagef("--window %s: give a duration of a minute or more (e.g. 1h), or leave it out for a run per day", fc.Window)
	}
	if fc.Queue <= 0 {
		fc.Queue = 256
	}
	if fc.Poll <= 0 {
		fc.Poll = 250 * time.Millisecond
	}
	if fc.AlertTimeout <= 0 {
		fc.AlertTimeout = 10 * time.Second
	}
	s, err := app.NewSession(cfg, st)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	f := &Watcher{s: s, fc: fc, stderr: stderr, space: make(chan struct{}, 1), clock: time.Now, flights: map[flightKey]flight{}}
	if f.alerts, err = parseAlerts(fc.Alerts, s.Scored()); err != nil {
		return nil, exit.UsageError{Err: err}
	}
	if f.dec, err = dataset.NewLineDecoder(dataset.Options{MaxRecordBytes: cfg.MaxRecordBytes, Map: cfg.Parsed.Map}); err != nil {
		return nil, exit.UsageError{Err: err}
	}
	if err := s.BuildJudge(); err != nil {
		return nil, err
	}
	if f.prices, err = s.PriceTable(); err != nil {
		return nil, err
	}
	f.stream = streamName(fc.Logs)
	cfg.Dataset = strings.Join(fc.Logs, " ")
	return f, nil
}

// Close releases the session's log file.
func (f *Watcher) Close() { f.s.Close() }

// Banner names the judge, as a run's banner does.
func (f *Watcher) Banner() string { return f.s.Banner }

// streamName names a watcher's state by its LOG arguments (absolute): the
// same arguments continue where the last watcher stopped.
func streamName(logs []string) string {
	abs := make([]string, len(logs))
	for i, l := range logs {
		if a, err := filepath.Abs(l); err == nil {
			l = a
		}
		abs[i] = l
	}
	slices.Sort(abs)
	h := sha256.Sum256([]byte(strings.Join(abs, "\x00")))
	return "logs-" + hex.EncodeToString(h[:8])
}

// contentHash is a record's identity for repeats and sampling: its
// question, answer, contexts (in order) and reference, each trimmed, and
// length-prefixed so that no two records share a byte stream.
func contentHash(s eval.Sample) [16]byte {
	h := sha256.New()
	put := func(t string) {
		t = strings.TrimSpace(t)
		h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(t))))
		io.WriteString(h, t)
	}
	put(s.Question)
	put(s.Answer)
	put(strconv.Itoa(len(s.Contexts)))
	for _, c := range s.Contexts {
		put(c)
	}
	put(s.Reference)
	if s.Conversation != "" {
		// "好的" answered "不客气" in two chats is two turns to evaluate; a
		// record of no conversation hashes as it always did.
		put(s.Conversation)
		put(strconv.Itoa(s.Turn))
	}
	return [16]byte(h.Sum(nil))
}

// sampled says whether --sample keeps a record: its hash read as a
// fraction, so the same record is kept by every watcher and after every
// restart.
func sampled(h [16]byte, frac float64) bool {
	if frac <= 0 || frac >= 1 {
		return true
	}
	u := binary.BigEndian.Uint64(h[:8]) >> 11
	return float64(u)/float64(uint64(1)<<53) < frac
}

// windowStart is the start of the window holding t.
func (f *Watcher) windowStart(t time.Time) time.Time {
	if f.fc.Window <= 0 {
		lt := t.Local()
		return time.Date(lt.Year(), lt.Month(), lt.Day(), 0, 0, 0, 0, time.Local)
	}
	return t.Truncate(f.fc.Window)
}

// Status is the watcher's state now (report.WatchStatus), for the progress
// line and the TUI's watch mode; safe to call from any goroutine.
func (f *Watcher) Status() report.WatchStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.status
	now := time.Now()
	st.Behind = len(f.flights)
	for _, fl := range f.flights {
		if d := now.Sub(fl.readAt); d > st.OldestUnread {
			st.OldestUnread = d
		}
	}
	st.Alerts = f.alerts.states()
	return st
}

func (f *Watcher) warn(msg string) {
	fmt.Fprintln(f.stderr, "ragscope watch:", sanitize.Line(msg))
}

func (f *Watcher) addFlight(r cache.WatchRecord) {
	f.mu.Lock()
	f.flights[flightKey{r.RunID, r.Index}] = flight{hash: r.Hash, readAt: r.ReadAt}
	f.mu.Unlock()
}

// Run follows the logs until ctx is done (or, with Once, until what they
// hold is evaluated). Records taken but not evaluated when it stops are
// evaluated by the next watcher of the same logs.
func (f *Watcher) Run(ctx context.Context) error {
	state, err := f.s.Store.WatchLoad(f.stream)
	if err != nil {
		return err
	}
	f.tail = newTailer(f.fc.Logs, state.Files, f.warn)
	defer f.tail.closeAll()
	var cur cache.WatchMeta
	if m := state.Meta; m != nil && m.RunID != "" && f.windowStart(f.clock()).Equal(m.Window) {
		cur = *m
	}
	byRun := map[string][]cache.WatchRecord{}
	if m := state.Meta; m != nil && m.RunID != "" {
		byRun[m.RunID] = nil // to be stamped finished if a kill left it open
	}
	for _, r := range state.Pending {
		byRun[r.RunID] = append(byRun[r.RunID], r)
	}
	for _, id := range slices.Sorted(maps.Keys(byRun)) {
		if id == cur.RunID {
			continue
		}
		// Records of an earlier window taken but not evaluated when the
		// last watcher stopped: evaluated into their own run, which then ends.
		if _, err := f.evaluate(ctx, id, byRun[id], nil); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
	queue := make(chan qItem, f.fc.Queue)
	tctx, tcancel := context.WithCancel(ctx)
	defer tcancel()
	tailErr := make(chan error, 1)
	go func() {
		defer close(queue)
		tailErr <- f.tailLoop(tctx, queue, cur)
	}()
	stop := func(err error) error {
		tcancel()
		for range queue {
		}
		err = cmp.Or(err, <-tailErr)
		f.waitAlertExecs()
		return err
	}
	runID, initial := cur.RunID, byRun[cur.RunID]
	for {
		if runID == "" {
			select {
			case it, ok := <-queue:
				if !ok {
					return stop(nil)
				}
				f.took()
				if it.end {
					continue
				}
				runID, initial = it.rec.RunID, []cache.WatchRecord{it.rec}
			case <-ctx.Done():
				return stop(nil)
			}
		}
		more, err := f.evaluate(ctx, runID, initial, queue)
		if err != nil || !more || ctx.Err() != nil {
			return stop(err)
		}
		runID, initial = "", nil
	}
}

// took tells the tailer the queue has room again.
func (f *Watcher) took() {
	select {
	case f.space <- struct{}{}:
	default:
	}
}

// evaluate runs one window's run (app.Session.StartStream): first the records
// given, then those the queue brings until the window ends. more is false
// when the queue is closed (the tailer stopped).
func (f *Watcher) evaluate(ctx context.Context, runID string, initial []cache.WatchRecord, queue <-chan qItem) (more bool, err error) {
	info, _, _, err := f.s.Store.RunPage(runID, 0, 0)
	fresh := err != nil
	if queue == nil && len(initial) == 0 && (fresh || info.FinishedAt != nil) {
		// An earlier window's run with nothing left to evaluate and its end
		// stamped: nothing to do (a kill may have left one open, which
		// goes on below to be stamped).
		return false, nil
	}
	if fresh {
		info = f.newInfo(runID)
	} else {
		// A watcher killed in this run recorded none of its usage: the
		// totals are a floor, as for --resume.
		info.UsagePartial = info.UsagePartial || info.FinishedAt == nil
		info.FinishedAt, info.Cancelled = nil, false
	}
	var mu sync.Mutex
	samples := info.Samples
	grow := func(idx int) bool {
		mu.Lock()
		defer mu.Unlock()
		if idx+1 > samples {
			samples = idx + 1
			return true
		}
		return false
	}
	for _, r := range initial {
		grow(r.Index)
		f.addFlight(r)
	}
	info.Samples = samples
	f.update(func(st *report.WatchStatus) { st.RunID = runID })
	// The source stops reading when the run stops on its own (see put).
	sctx, abort := context.WithCancel(ctx)
	defer abort()
	wait := pace(f.fc.MaxRPS)
	more = true
	lastPut, grew := time.Now(), false
	base := info
	source := func(yield func(eval.Sample) bool) error {
		for _, r := range initial {
			if wait(ctx) != nil {
				return nil
			}
			yield(r.Sample)
		}
		if queue == nil {
			return nil
		}
		for {
			select {
			case <-sctx.Done():
				return nil
			case it, ok := <-queue:
				f.took()
				if !ok {
					more = false
					return nil
				}
				if it.end {
					return nil
				}
				if wait(ctx) != nil {
					return nil
				}
				grew = grow(it.rec.Index) || grew
				if grew && (time.Since(lastPut) > time.Second || len(queue) == 0) {
					// The record says how many samples the run has so far:
					// runs and report show a live run growing, at most once
					// a second and at the end of a burst. (The source alone
					// writes samples: it reads it without the lock.)
					base.Samples, grew = samples, false
					_ = f.s.Store.PutRun(base)
					lastPut = time.Now()
				}
				yield(it.rec.Sample)
			}
		}
	}
	run, err := f.s.StartStream(ctx, app.Stream{
		Info: info, Source: source, Total: info.Samples,
		Put: func(id string, res *eval.Result) error { return f.put(ctx, id, res, abort) },
		Stamp: func(i *report.RunInfo) {
			mu.Lock()
			i.Samples = samples
			mu.Unlock()
		},
	})
	if err != nil {
		return false, err
	}
	for ev := range run.Events {
		if ev.Kind == eval.EventError && ev.Sample < 0 {
			f.warn(ev.Err)
		}
	}
	if _, err := run.Wait(); err != nil {
		return false, err
	}
	if err := run.Stopped(); err != nil {
		return false, fmt.Errorf("run %s stopped: %w", runID, err)
	}
	return more, nil
}

// put stores a finished record's result with its state (one transaction).
// A result cut short (cancelled) is not stored: the record stays taken and
// the next watcher evaluates it again, its finished judge calls from the
// cache.
func (f *Watcher) put(ctx context.Context, runID string, res *eval.Result, abort func()) error {
	key := flightKey{runID, res.Index}
	f.mu.Lock()
	fl, ok := f.flights[key]
	f.mu.Unlock()
	if !ok {
		return fmt.Errorf("run %s sample %d: finished but never taken (a ragscope bug: please report it)", runID, res.Index)
	}
	for _, st := range res.Status {
		if st == eval.StatusCancelled {
			if ctx.Err() == nil {
				// The run stopped on its own (the judge is down): stop
				// reading, the records stay taken for the next watcher.
				abort()
			}
			return nil
		}
	}
	if err := f.s.Store.WatchResult(f.stream, fl.hash, runID, res); err != nil {
		return err
	}
	f.mu.Lock()
	delete(f.flights, key)
	f.status.Evaluated++
	f.mu.Unlock()
	for _, fired := range f.alerts.observe(res) {
		f.fire(fired, runID, res.Index)
	}
	return nil
}

// newInfo is the record of a new window's run.
func (f *Watcher) newInfo(id string) report.RunInfo {
	now := f.clock()
	info := f.s.NewRunInfo(id, now, f.prices)
	info.Config["watch"] = f.stream
	info.Config["watch_window"] = f.windowStart(now).Format(time.RFC3339)
	if f.fc.Window > 0 {
		info.Config["window"] = f.fc.Window.String()
	} else {
		info.Config["window"] = "day"
	}
	if f.fc.Sample > 0 && f.fc.Sample < 1 {
		info.Config["sample"] = strconv.FormatFloat(f.fc.Sample, 'g', -1, 64)
	}
	if f.fc.MaxRPS > 0 {
		info.Config["max_rps"] = strconv.FormatFloat(f.fc.MaxRPS, 'g', -1, 64)
	}
	return info
}

// maxBatch bounds the records taken in one transaction.
const maxBatch = 256

// tailLoop reads the logs, takes their new records (committing positions
// and hashes) and queues them; it waits when the queue is full, so that
// the log, not memory, holds what the judge has not caught up with.
func (f *Watcher) tailLoop(ctx context.Context, queue chan<- qItem, meta cache.WatchMeta) error {
	t := f.tail
	var lastScan time.Time // zero: the first scan
	timer := time.NewTimer(0)
	defer timer.Stop()
	wait := func(d time.Duration, space bool) bool {
		timer.Reset(d)
		var sp <-chan struct{}
		if space {
			sp = f.space
		}
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
		case <-sp:
			timer.Stop()
		}
		return true
	}
	for {
		now := f.clock()
		if now.Sub(lastScan) >= f.fc.Poll {
			t.scan(now, lastScan.IsZero())
			lastScan = now
			f.update(func(st *report.WatchStatus) { st.Files = len(t.files) })
		}
		if meta.RunID != "" && !f.windowStart(now).Equal(meta.Window) {
			// The window is over: its run ends; the next record starts a new one.
			select {
			case queue <- qItem{end: true}:
			case <-ctx.Done():
				return nil
			}
			meta = cache.WatchMeta{}
		}
		free := cap(queue) - len(queue)
		if free <= 0 {
			f.noteBehind()
			if !wait(f.fc.Poll, true) {
				return nil
			}
			continue
		}
		take, progressed, err := f.readBatch(min(free, maxBatch), now)
		if err != nil {
			return err
		}
		var files []cache.WatchFile
		for _, tf := range t.files {
			if tf.dirty {
				files = append(files, tf.st)
			}
		}
		if len(take) > 0 || len(files) > 0 || len(t.forget) > 0 {
			if len(take) > 0 && meta.RunID == "" {
				id, err := f.s.Store.NewRunID()
				if err != nil {
					return err
				}
				meta = cache.WatchMeta{RunID: id, Window: f.windowStart(now)}
			}
			res, err := f.s.Store.WatchAdmit(f.stream, cache.WatchAdmit{RunID: meta.RunID, Window: meta.Window, Files: files, Forget: t.forget, Take: take})
			if err != nil {
				return fmt.Errorf("recording the watcher's place in its logs: %w", err)
			}
			for _, tf := range t.files {
				tf.dirty = false
			}
			t.forget = nil
			if res.Meta.RunID != "" {
				meta = res.Meta
			}
			f.update(func(st *report.WatchStatus) { st.Duplicates += int64(res.Dups) })
			for _, r := range res.Taken {
				f.addFlight(r)
				select {
				case queue <- qItem{rec: r}:
				case <-ctx.Done():
					return nil
				}
			}
		}
		f.noteBehind()
		if !progressed {
			if f.fc.Once {
				for _, tf := range t.files {
					if tf.plen > 0 && !tf.st.Done {
						f.warn(fmt.Sprintf("%s: its last line (%s) has no newline yet: left for the next pass", tf.path, store.ByteCount(tf.plen)))
					}
				}
				return nil
			}
			if !wait(f.fc.Poll, false) {
				return nil
			}
		}
	}
}

// noteBehind puts in the status how much of the logs is not read yet.
func (f *Watcher) noteBehind() {
	b, oldest := f.tail.behind(time.Now())
	f.update(func(st *report.WatchStatus) { st.BehindBytes, st.OldestUnread = b, oldest })
}

// update changes the status under its lock.
func (f *Watcher) update(change func(st *report.WatchStatus)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(&f.status)
}

// readBatch reads lines from every followed file in turn until n records
// are taken or nothing is left to read; progressed says a line was read.
func (f *Watcher) readBatch(n int, now time.Time) (take []cache.WatchRecord, progressed bool, err error) {
	t := f.tail
	keys := slices.SortedFunc(maps.Keys(t.files), func(a, b string) int { return cmp.Compare(t.files[a].path, t.files[b].path) })
	limit := cmp.Or(f.s.Cfg.MaxRecordBytes, dataset.DefaultMaxRecordBytes)
	for _, k := range keys {
		tf := t.files[k]
		if err := t.check(tf); err != nil {
			if msg := err.Error(); msg != f.lastWarn {
				f.lastWarn = msg
				f.warn(msg)
			}
			continue
		}
		tf.eof = false
		for len(take) < n {
			// An unterminated last line is the service still writing it:
			// left, with --once too, for the next pass to read whole. Only
			// a file no argument names any more is read to its very end.
			ln, ok, err := t.next(tf, !tf.matched, limit)
			if err != nil {
				f.warn(err.Error())
				break
			}
			if !ok {
				break
			}
			progressed = true
			// A line is a record, or an OTLP/JSON batch of traces holding
			// any number of requests.
			samples, err := f.dec.DecodeLine(tf.path, ln.num, ln.text)
			if errors.Is(err, dataset.ErrBlankLine) {
				continue
			}
			f.update(func(st *report.WatchStatus) { st.Read++ })
			if err != nil {
				f.update(func(st *report.WatchStatus) { st.Invalid++ })
				f.warn(err.Error() + " — skipped; the watcher goes on")
			}
			for _, s := range samples {
				h := contentHash(s)
				if !sampled(h, f.fc.Sample) {
					f.update(func(st *report.WatchStatus) { st.Sampled++ })
					continue
				}
				s.ID = cmp.Or(s.ID, filepath.Base(tf.path)+":"+strconv.Itoa(ln.num))
				take = append(take, cache.WatchRecord{Hash: hex.EncodeToString(h[:]), Sample: s, File: tf.path, Line: ln.num, ReadAt: cmp.Or(tf.since, now)})
			}
		}
		t.finishEOF(tf)
		if tf.eof {
			tf.since = time.Time{}
		}
	}
	return take, progressed, nil
}

// pace spaces the records started (--max-rps): one every 1/rps. The
// function it returns waits for the next one's turn, or for ctx to end.
func pace(rps float64) func(ctx context.Context) error {
	if rps <= 0 {
		return func(ctx context.Context) error { return ctx.Err() }
	}
	every := time.Duration(float64(time.Second) / rps)
	var next time.Time
	return func(ctx context.Context) error {
		if d := time.Until(next); d > 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(d):
			}
		}
		next = time.Now().Add(every)
		return nil
	}
}
