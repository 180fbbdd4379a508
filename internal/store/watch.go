package store

import (
	"fmt"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

var _ cache.WatchStore = (*Shared)(nil)

func watchStore(st cache.Store) (cache.WatchStore, error) {
	if fs, ok := st.(cache.WatchStore); ok {
		return fs, nil
	}
	return nil, fmt.Errorf("this database cannot keep a watcher's state (%T); a ragscope of this version must hold it", st)
}

// WatchLoad implements cache.WatchStore, through the holder or not.
func (s *Shared) WatchLoad(stream string) (st cache.WatchState, err error) {
	err = s.do(func(c cache.Store) error {
		fs, err := watchStore(c)
		if err == nil {
			st, err = fs.WatchLoad(stream)
		}
		return err
	})
	return st, err
}

// WatchAdmit implements cache.WatchStore. Repeating it after losing the
// holder is safe: records already taken come back as repeats, and the
// offsets are the same.
func (s *Shared) WatchAdmit(stream string, a cache.WatchAdmit) (r cache.WatchAdmitted, err error) {
	err = s.do(func(c cache.Store) error {
		fs, err := watchStore(c)
		if err == nil {
			r, err = fs.WatchAdmit(stream, a)
		}
		return err
	})
	return r, err
}

// WatchResult implements cache.WatchStore.
func (s *Shared) WatchResult(stream, hash, runID string, res *eval.Result) error {
	return s.do(func(c cache.Store) error {
		fs, err := watchStore(c)
		if err == nil {
			err = fs.WatchResult(stream, hash, runID, res)
		}
		return err
	})
}
