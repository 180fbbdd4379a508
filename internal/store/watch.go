package store

import (
	"fmt"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

var _ cache.WatchStore = (*Shared)(nil)

// watchGet is get for a call of the watcher's state, through the holder
// or not.
func watchGet[T any](s *Shared, fn func(cache.WatchStore) (T, error)) (T, error) {
	return get(s, func(st cache.Store) (T, error) {
		ws, ok := st.(cache.WatchStore)
		if !ok {
			var none T
			return none, fmt.Errorf("this database cannot keep a watcher's state (%T); a ragscope of this version must hold it", st)
		}
		return fn(ws)
	})
}

// WatchLoad implements cache.WatchStore.
func (s *Shared) WatchLoad(stream string) (cache.WatchState, error) {
	return watchGet(s, func(ws cache.WatchStore) (cache.WatchState, error) { return ws.WatchLoad(stream) })
}

// WatchAdmit implements cache.WatchStore. Repeating it after losing the
// holder is safe: records already taken come back as repeats, and the
// offsets are the same.
func (s *Shared) WatchAdmit(stream string, a cache.WatchAdmit) (cache.WatchAdmitted, error) {
	return watchGet(s, func(ws cache.WatchStore) (cache.WatchAdmitted, error) { return ws.WatchAdmit(stream, a) })
}

// WatchResult implements cache.WatchStore.
func (s *Shared) WatchResult(stream, hash, runID string, res *eval.Result) error {
	_, err := watchGet(s, func(ws cache.WatchStore) (struct{}, error) {
		return struct{}{}, ws.WatchResult(stream, hash, runID, res)
	})
	return err
}
