// Package store is the database as a ragscope process uses it (Shared):
// it holds the file and serves it to other processes, or it is the client
// of the process that does, and takes the database over when that one
// goes away. It also reads a stored run back a page at a time (Each,
// Cursor, Result), for the reports, the labels and a resumed run.
package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/holder"
)

// DBPath is path or, when empty, the default database.
func DBPath(path string) (string, error) {
	if path != "" {
		return path, nil
	}
	p, err := cache.DefaultPath()
	if err != nil {
		return "", fmt.Errorf("finding the cache directory: %v (pass --db FILE)", err)
	}
	return p, nil
}

// Version is ragscope's version as holders announce it to their clients.
const Version = "0.2.0"

// How a process uses the database.
const (
	// Hold: a long-lived process (a run, a TUI, the server). It uses the
	// holder's database when there is one, and otherwise holds the file
	// and serves it; when its holder goes away it takes over.
	Hold = iota
	// Read: a short command that only reads (runs, report, diff, cache
	// stats and export). Through the holder, or the file opened read-only.
	Read
	// Write: a short command that writes (cache clear and import).
	// Through the holder, or the file opened without serving it.
	Write
)

// OpenOptions say how a process uses the database.
type OpenOptions struct {
	Mode int
	// Role names the process to its clients ("run", "open", "serve").
	Role string
	// Runs, for `ragscope serve`, evaluates runs submitted by clients.
	Runs holder.RunService
	// Wait bounds how long to wait for a file that is locked by a process
	// that does not serve it (a short command, or a holder starting or
	// stopping); 10 s when zero.
	Wait time.Duration
	// Stderr, when set, hears of a takeover.
	Stderr io.Writer
}

// Shared is the database as this process uses it: it holds the file, or it
// is a client of the process that does. It survives the loss of its holder: the
// next call takes the database over (or attaches to whoever did) and
// repeats itself, which every write being idempotent makes safe.
type Shared struct {
	// The calls of cache.Store that need nothing of their own here go
	// through the holder's table by name (invoke).
	holder.Stub
	path, sock string
	opt        OpenOptions

	mu   sync.Mutex
	db   *cache.DB
	srv  *holder.Server
	cl   *holder.Client
	live map[string]bool // runs this process is evaluating
	gen  int             // bumped on every (re)attachment

	// note says the holder stopped answering ("" while it answers).
	noteMu sync.Mutex
	note   string

	// held are the claims this process holds, by id, each with the release
	// of its registration with the current holder: they are registered
	// again with the next one (see holder/handover.go).
	held     map[uint64]*heldClaim
	nextHeld uint64
}

// heldClaim is a claim this process holds.
type heldClaim struct {
	key     string
	release func() // nil: the current holder did not grant it again
}

var _ cache.Store = (*Shared)(nil)

// Open attaches to the database at path (the default one when empty).
func Open(path string, opt OpenOptions) (*Shared, error) {
	path, err := DBPath(path)
	if err != nil {
		return nil, err
	}
	if opt.Mode == Read {
		if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
			return nil, exit.Usagef("no database at %s yet: run an evaluation first, or pass --db FILE", path)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the directory of database %s: %w; pass --db FILE to use another location", path, err)
	}
	sock, err := holder.SocketPath(path)
	if err != nil {
		return nil, err
	}
	if opt.Wait <= 0 {
		opt.Wait = 10 * time.Second
	}
	s := &Shared{path: path, sock: sock, opt: opt, live: map[string]bool{}, held: map[uint64]*heldClaim{}}
	s.Stub = holder.NewStub(s.invoke)
	if err := s.attach(); err != nil {
		return nil, err
	}
	return s, nil
}

// attach connects to the holder or becomes it; s.mu is held.
func (s *Shared) attach() error {
	deadline := time.Now().Add(s.opt.Wait)
	pause := 20 * time.Millisecond
	for {
		cl, err := holder.Dial(s.sock, 2*time.Second)
		if err == nil {
			s.attachTo(nil, nil, cl)
			s.watchHolder(cl)
			if s.opt.Mode == Hold {
				// Come back as soon as the holder goes, not at the next
				// call: a claim held meanwhile by a call on the wire is
				// registered again before anyone else is granted it.
				go func(gen int) {
					<-cl.Lost()
					_ = s.recover(gen, fmt.Errorf("%w of database %s (pid %d)", holder.ErrLost, s.path, cl.Hello().PID))
				}(s.gen)
			}
			return nil
		}
		if !errors.Is(err, holder.ErrNoHolder) {
			return err
		}
		db, err := cache.Open(s.path, cache.Options{Timeout: 200 * time.Millisecond, ReadOnly: s.opt.Mode == Read})
		if err == nil {
			if s.opt.Mode != Hold {
				s.attachTo(db, nil, nil)
				return nil
			}
			srv, err := holder.Serve(db, holder.ServeOptions{Version: Version, Role: s.opt.Role, Runs: s.opt.Runs})
			if err == nil {
				s.attachTo(db, srv, nil)
				return nil
			}
			db.Close()
			if !errors.Is(err, holder.ErrServed) {
				return err
			}
		} else if !errors.Is(err, cache.ErrInUse) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("database %s is in use by another process that does not serve it (an older ragscope, or one that is starting or stopping; waited %s); "+
				"wait for it to finish or pass --db FILE to use another database: %w", s.path, s.opt.Wait, cache.ErrInUse)
		}
		time.Sleep(pause)
		pause = min(2*pause, 250*time.Millisecond)
	}
}

// attachTo makes the file, served or not, or a holder's client the store
// calls go to; s.mu is held.
func (s *Shared) attachTo(db *cache.DB, srv *holder.Server, cl *holder.Client) {
	s.db, s.srv, s.cl = db, srv, cl
	s.gen++
}

// watchHolder says so, on stderr and in HolderNote, when the holder stops
// answering and when it answers again: a holder stopped with Ctrl-Z keeps
// the file's lock, so its clients' calls wait until it goes on or goes away.
func (s *Shared) watchHolder(cl *holder.Client) {
	h := cl.Hello()
	cl.OnHung(func(hung bool) {
		note := ""
		if hung {
			why := "it may be hung"
			if holder.ProcessStopped(h.PID) {
				why = "it is stopped (Ctrl-Z or kill -STOP)"
			}
			note = fmt.Sprintf("the holder of the database (pid %d, ragscope %s) has not answered for %s: %s; waiting for it: resume it (fg in its terminal, or kill -CONT %d), or end it (kill %d) and this process takes the database over",
				h.PID, h.Role, holder.HungAfter, why, h.PID, h.PID)
		}
		s.noteMu.Lock()
		was := s.note
		s.note = note
		s.noteMu.Unlock()
		if s.opt.Stderr == nil {
			return
		}
		switch {
		case hung:
			fmt.Fprintln(s.opt.Stderr, "ragscope:", note)
		case was != "":
			fmt.Fprintf(s.opt.Stderr, "ragscope: the holder of the database (pid %d) answers again\n", h.PID)
		}
	})
}

// HolderNote says why calls wait when the holder has stopped answering;
// "" while it answers.
func (s *Shared) HolderNote() string {
	s.noteMu.Lock()
	defer s.noteMu.Unlock()
	return s.note
}

// current is the store calls go to now, and its attachment number.
func (s *Shared) current() (cache.Store, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.db != nil:
		return s.db, s.gen, nil
	case s.cl != nil:
		return s.cl, s.gen, nil
	}
	return nil, s.gen, cache.ErrClosed
}

// recover replaces a lost holder, unless another call already did.
func (s *Shared) recover(gen int, cause error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gen != gen {
		return nil
	}
	if s.cl != nil {
		s.cl.Close()
		s.cl = nil
	}
	s.noteMu.Lock()
	s.note = ""
	s.noteMu.Unlock()
	if err := s.attach(); err != nil {
		return fmt.Errorf("%v; taking the database over failed: %w", cause, err)
	}
	s.registerLocked(slices.Collect(maps.Values(s.held)))
	if s.opt.Stderr != nil {
		who := "took the database over"
		if s.cl != nil {
			who = fmt.Sprintf("attached to the new holder (pid %d)", s.cl.Hello().PID)
		}
		fmt.Fprintf(s.opt.Stderr, "ragscope: the holder of %s went away (%v); %s\n", s.path, cause, who)
	}
	for id := range s.live {
		s.announceLocked(id, true)
	}
	return nil
}

// do runs fn on the current store and repeats it on the next one if the
// holder went away; gen is the attachment fn runs on.
func (s *Shared) do(fn func(st cache.Store, gen int) error) error {
	for attempt := 0; ; attempt++ {
		st, gen, err := s.current()
		if err != nil {
			return err
		}
		err = fn(st, gen)
		if err == nil || attempt == 3 {
			return err
		}
		if errors.Is(err, cache.ErrClosed) && s.replaced(gen) {
			continue // another call lost the holder and replaced it under us
		}
		if !errors.Is(err, holder.ErrLost) {
			return err
		}
		if rerr := s.recover(gen, err); rerr != nil {
			return rerr
		}
	}
}

// call is do for a call that needs not know its attachment.
func (s *Shared) call(fn func(cache.Store) error) error {
	return s.do(func(st cache.Store, _ int) error { return fn(st) })
}

// get is do for a call with one result.
func get[T any](s *Shared, fn func(cache.Store) (T, error)) (out T, err error) {
	err = s.do(func(st cache.Store, _ int) error {
		var err error
		out, err = fn(st)
		return err
	})
	return out, err
}

// invoke calls a method of the holder's table on the current store, in
// this process or through the holder, and repeats it on the next one as do
// does: a watcher's step too, whose records already taken come back as
// repeats.
func (s *Shared) invoke(method string, args []any, results ...any) error {
	return s.call(func(st cache.Store) error {
		if db, ok := st.(*cache.DB); ok {
			return holder.CallDB(db, method, args, results...)
		}
		return st.(*holder.Client).Invoke(method, args, results...)
	})
}

// replaced says the attachment gen was replaced by a newer one (not closed
// by Close).
func (s *Shared) replaced(gen int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen != gen && (s.db != nil || s.cl != nil)
}

// Holding reports whether this process holds the file.
func (s *Shared) Holding() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.db != nil
}

// Holder describes the process that holds the database when it is not us.
func (s *Shared) Holder() (holder.Hello, bool) {
	if cl := s.Client(); cl != nil {
		return cl.Hello(), true
	}
	return holder.Hello{}, false
}

// Client is the connection to the holder, nil when this process holds the
// file (detach and attach need the server's run service).
func (s *Shared) Client() *holder.Client {
	_, cl := s.attached()
	return cl
}

// Close lets go of the database: a holder stops serving (its clients take
// over) and closes the file.
func (s *Shared) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	var err error
	if s.srv != nil {
		s.srv.Close()
		s.srv = nil
	}
	if s.db != nil {
		err = s.db.Close()
		s.db = nil
	}
	if s.cl != nil {
		err = s.cl.Close()
		s.cl = nil
	}
	s.gen++
	return err
}

// BeginRun tells other processes the run is being evaluated here.
func (s *Shared) BeginRun(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.live[id] = true
	return s.announceLocked(id, true)
}

// EndRun says the run is no longer evaluated here.
func (s *Shared) EndRun(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, id)
	return s.announceLocked(id, false)
}

// announceLocked begins or ends a live run with the holder; s.mu is held.
func (s *Shared) announceLocked(id string, begin bool) error {
	switch {
	case s.srv != nil && begin:
		s.srv.BeginRun(id)
	case s.srv != nil:
		s.srv.EndRun(id)
	case s.cl != nil && begin:
		return s.cl.BeginRun(id)
	case s.cl != nil:
		return s.cl.EndRun(id)
	}
	return nil
}

// attached is the server this process runs and the client of another
// holder, one of them nil (both when a short command holds the file).
func (s *Shared) attached() (*holder.Server, *holder.Client) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.srv, s.cl
}

// SetProgress tells viewers of a run this process evaluates how far it is
// (see holder.Progress). Best effort: a holder that is gone or busy costs
// the viewers a figure, never the run a wait.
func (s *Shared) SetProgress(id string, p holder.Progress) {
	switch srv, cl := s.attached(); {
	case srv != nil:
		srv.SetProgress(id, p)
	case cl != nil:
		_ = cl.SetProgress(id, p)
	}
}

// RunProgress is what the evaluator of a live run last said of it.
func (s *Shared) RunProgress(id string) (holder.RunProgress, error) {
	return get(s, func(cache.Store) (holder.RunProgress, error) {
		switch srv, cl := s.attached(); {
		case srv != nil:
			return srv.Progress(id), nil
		case cl != nil:
			return cl.Progress(id)
		}
		return holder.RunProgress{}, nil // a short command holding the file: nothing else runs
	})
}

// Live lists the runs being evaluated now by the holder or its clients.
func (s *Shared) Live() (map[string]holder.LiveRun, error) {
	return get(s, func(cache.Store) (map[string]holder.LiveRun, error) {
		switch srv, cl := s.attached(); {
		case srv != nil:
			return srv.Live(), nil
		case cl != nil:
			return cl.Live()
		}
		return map[string]holder.LiveRun{}, nil // a short command holding the file: nothing else runs
	})
}

func (s *Shared) Path() string   { return s.path }
func (s *Shared) ReadOnly() bool { return s.opt.Mode == Read && s.Holding() }

// RunPage is not the table's: a page read in this process is not capped
// as a holder's reply is.
func (s *Shared) RunPage(ref string, from, limit int) (info report.RunInfo, page []*eval.Result, next int, err error) {
	err = s.call(func(st cache.Store) (err error) {
		info, page, next, err = st.RunPage(ref, from, limit)
		return err
	})
	return info, page, next, err
}

// RunSummaries is cache.DB.RunSummaries, in this process or the holder's.
// A call repeated on a new holder does not give fn the results it was
// given already.
func (s *Shared) RunSummaries(ref string, from, limit int, fn func(*eval.Result) error) (int, error) {
	given := 0
	return get(s, func(st cache.Store) (int, error) {
		n := 0
		return st.RunSummaries(ref, from, limit, func(r *eval.Result) error {
			if n++; n <= given {
				return nil
			}
			given = n
			return fn(r)
		})
	})
}

// DeleteRuns removes runs and their results. A run being evaluated (by
// this process, the holder or another client) is refused.
func (s *Shared) DeleteRuns(ids []string) (runs, results int, err error) {
	err = s.call(func(st cache.Store) (err error) {
		if srv, _ := s.attached(); srv != nil {
			// Holding the file and serving it: the holder's check is ours.
			if err := holder.RefuseLive(srv.Live(), ids); err != nil {
				return err
			}
		}
		runs, results, err = st.DeleteRuns(ids)
		return err
	})
	return runs, results, err
}

func (s *Shared) LiveUpdates(ctx context.Context, runID string, after int64, wait time.Duration) (cache.LiveBatch, error) {
	return get(s, func(st cache.Store) (cache.LiveBatch, error) { return st.LiveUpdates(ctx, runID, after, wait) })
}

// Claim implements cache.Store. A claim granted is held by this process
// across a change of holder: it is registered again with the next one.
func (s *Shared) Claim(ctx context.Context, key string) (release func(), granted bool, err error) {
	err = s.do(func(st cache.Store, gen int) error {
		if srv, _ := s.attached(); srv != nil {
			// Holding a database taken over: the claims of its former
			// clients come back first.
			select {
			case <-srv.HandoverDone():
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		r, ok, err := st.Claim(ctx, key)
		if err == nil && ok {
			release, granted = s.hold(key, r, gen), true
		}
		return err
	})
	return release, granted, err
}

// hold records a claim granted by attachment gen and returns its release.
func (s *Shared) hold(key string, release func(), gen int) func() {
	s.mu.Lock()
	s.nextHeld++
	id := s.nextHeld
	hc := &heldClaim{key: key, release: release}
	s.held[id] = hc
	if s.gen != gen {
		// Granted by a holder that went away since: register it with
		// the current one, which the takeover did not know it for.
		s.registerLocked([]*heldClaim{hc})
	}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		hc := s.held[id]
		delete(s.held, id)
		s.mu.Unlock()
		if hc != nil && hc.release != nil {
			hc.release()
		}
	}
}

// registerLocked registers held claims with the current holder: in our own
// database when we hold it, with a Rejoin otherwise (sent even with no
// claim: the holder waits for each of its predecessor's claimers). A claim
// someone else holds by now is not ours any more; its call's reply is
// stored all the same. s.mu is held.
func (s *Shared) registerLocked(hcs []*heldClaim) {
	switch {
	case s.db != nil:
		for _, hc := range hcs {
			hc.release = s.db.TryClaim(hc.key)
		}
	case s.cl != nil:
		keys := make([]string, len(hcs))
		for i, hc := range hcs {
			keys[i] = hc.key
			hc.release = nil
		}
		tokens, err := s.cl.Rejoin(keys)
		if err != nil || len(tokens) != len(hcs) {
			return
		}
		for i, hc := range hcs {
			if tokens[i] != 0 {
				hc.release = s.cl.Release(tokens[i])
			}
		}
	}
}

// Export is not repeated after a takeover: part of it may be written.
func (s *Shared) Export(w io.Writer) (int, error) {
	st, _, err := s.current()
	if err != nil {
		return 0, err
	}
	return st.Export(w)
}

func (s *Shared) Import(r io.Reader) (int, error) {
	st, _, err := s.current()
	if err != nil {
		return 0, err
	}
	return st.Import(r)
}

// ByteCount writes a size for people: 12 B, 3.4 KiB, 1.2 GiB.
func ByteCount(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
