package store

import (
	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

func (s *Shared) WatchLoad(stream string) (cache.WatchState, error) {
	return get(s, func(st cache.Store) (cache.WatchState, error) { return st.WatchLoad(stream) })
}

// WatchAdmit can be repeated after losing the holder: records already
// taken come back as repeats, and the offsets are the same.
func (s *Shared) WatchAdmit(stream string, a cache.WatchAdmit) (cache.WatchAdmitted, error) {
	return get(s, func(st cache.Store) (cache.WatchAdmitted, error) { return st.WatchAdmit(stream, a) })
}

func (s *Shared) WatchResult(stream, hash, runID string, res *eval.Result) error {
	return s.call(func(st cache.Store) error { return st.WatchResult(stream, hash, runID, res) })
}
