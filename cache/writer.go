package cache

import (
	"fmt"
	"sync"

	"github.com/ragscope/ragscope/cache/internal/boltfile"
	bolt "go.etcd.io/bbolt"
)

// writer commits writes in groups: one goroutine runs every waiting write
// in one transaction (one fsync), and only then tells each caller it is
// done. Unlike bbolt's db.Batch it does not wait 10 ms before a commit,
// which a runner storing results one by one would pay on every sample.
type writer struct {
	db   *bolt.DB
	reqs chan writeReq
	done chan struct{}
	// res trims the mapping as commits touch it.
	res *boltfile.Resident
	// watch sees whether anyone else writes the file (see boltfile.FileWatch).
	watch *boltfile.FileWatch

	mu     sync.RWMutex // guards closed against sends on a closed channel
	closed bool
}

type writeReq struct {
	fn  func(*bolt.Tx) error
	err chan error
}

// maxGroup bounds a transaction so that one commit's dirty pages stay small.
const maxGroup = 1000

func newWriter(db *bolt.DB, res *boltfile.Resident, watch *boltfile.FileWatch) *writer {
	w := &writer{db: db, reqs: make(chan writeReq, 64), done: make(chan struct{}), res: res, watch: watch}
	go w.run()
	return w
}

func (w *writer) do(fn func(*bolt.Tx) error) error {
	w.mu.RLock()
	if w.closed {
		w.mu.RUnlock()
		return ErrClosed
	}
	errc := make(chan error, 1)
	w.reqs <- writeReq{fn: fn, err: errc}
	w.mu.RUnlock()
	return <-errc
}

func (w *writer) close() {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.reqs)
	}
	w.mu.Unlock()
	<-w.done
}

func (w *writer) run() {
	defer close(w.done)
	for first := range w.reqs {
		group := []writeReq{first}
	drain:
		for len(group) < maxGroup {
			select {
			case r, ok := <-w.reqs:
				if !ok {
					break drain
				}
				group = append(group, r)
			default:
				break drain
			}
		}
		w.commit(group)
		w.res.Note(w.db, 0)
	}
}

// commit runs the group in one transaction. A function that fails would
// roll back everyone's work, so it is taken out, the rest is committed, and
// it is re-run alone to get its own verdict.
func (w *writer) commit(group []writeReq) {
	for len(group) > 0 {
		failed := -1
		err := w.update(func(tx *bolt.Tx) error {
			for i, r := range group {
				if err := safeCall(r.fn, tx); err != nil {
					failed = i
					return err
				}
			}
			return nil
		})
		if failed >= 0 {
			solo := group[failed]
			group = append(group[:failed:failed], group[failed+1:]...)
			defer func() {
				solo.err <- w.update(func(tx *bolt.Tx) error { return safeCall(solo.fn, tx) })
			}()
			continue
		}
		for _, r := range group {
			r.err <- err
		}
		return
	}
}

// update is one commit, guarded and watched.
func (w *writer) update(fn func(*bolt.Tx) error) error {
	return w.watch.Commit(func() error { return guardedUpdate(w.db.Path(), w.db, fn) })
}

// safeCall keeps a panicking write from killing the writer goroutine, which
// would leave every later caller waiting forever.
func safeCall(fn func(*bolt.Tx) error, tx *bolt.Tx) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if err = panicError(tx.DB().Path(), p); err == nil {
				err = fmt.Errorf("database write panicked: %v", p)
			}
		}
	}()
	return fn(tx)
}
