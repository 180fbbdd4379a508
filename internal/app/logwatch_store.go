package app

import (
	"fmt"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

var _ cache.FollowStore = (*Shared)(nil)

func followStore(st cache.Store) (cache.FollowStore, error) {
	if fs, ok := st.(cache.FollowStore); ok {
		return fs, nil
	}
	return nil, fmt.Errorf("this database cannot keep a watcher's state (%T); a ragscope of this version must hold it", st)
}

// FollowLoad implements cache.FollowStore, through the holder or not.
func (s *Shared) FollowLoad(stream string) (st cache.FollowState, err error) {
	err = s.do(func(c cache.Store) error {
		fs, err := followStore(c)
		if err == nil {
			st, err = fs.FollowLoad(stream)
		}
		return err
	})
	return st, err
}

// FollowAdmit implements cache.FollowStore. Repeating it after losing the
// holder is safe: records already taken come back as repeats, and the
// offsets are the same.
func (s *Shared) FollowAdmit(stream string, a cache.FollowAdmit) (r cache.FollowAdmitted, err error) {
	err = s.do(func(c cache.Store) error {
		fs, err := followStore(c)
		if err == nil {
			r, err = fs.FollowAdmit(stream, a)
		}
		return err
	})
	return r, err
}

// FollowResult implements cache.FollowStore.
func (s *Shared) FollowResult(stream, hash, runID string, res *eval.Result) error {
	return s.do(func(c cache.Store) error {
		fs, err := followStore(c)
		if err == nil {
			err = fs.FollowResult(stream, hash, runID, res)
		}
		return err
	})
}
