package cache

import (
	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/cache/internal/summary"
	"github.com/ragscope/ragscope/eval"
)

// RunSummaries is RunPage for a table of a million rows: fn is given each
// result with only what a table needs, read in place from the stored JSON,
// the rest skipped rather than decoded. The result is one value reused for
// every call: fn must not keep it nor its maps, and its ID, Question and
// Answer are views of the stored bytes, valid only during the call. An
// error of fn stops the walk and is returned.
func (db *DB) RunSummaries(ref string, from, limit int, fn func(*eval.Result) error) (next int, err error) {
	next = -1
	read := 0
	defer func() { db.res.Note(db.bolt, read) }()
	err = db.view(func(tx *bolt.Tx) error {
		info, err := resolveRun(tx, db.path, ref)
		if err != nil || limit <= 0 {
			return err
		}
		var d summary.Decoder
		n := 0
		return walkResults(tx, db.path, info.ID, from, func(idx int, k, v []byte) (bool, error) {
			if n == limit {
				next = idx
				return false, nil
			}
			n++
			read += len(k) + len(v)
			r, err := d.Decode(v)
			if err != nil {
				return false, damaged(db.path, "run %s, sample %d: unreadable result: %v", info.ID, idx, err)
			}
			return true, fn(r)
		})
	})
	if err != nil {
		return -1, err
	}
	return next, nil
}

// SummaryDecoder reads a summary that was sent as JSON (a holder serves
// RunSummaries to its clients that way) as RunSummaries gives it: one
// result reused for every call, its ID, Question and Answer views of the
// bytes decoded, which must stay unchanged while the result is used.
type SummaryDecoder = summary.Decoder
