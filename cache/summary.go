package cache

import (
	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/cache/internal/summary"
	"github.com/ragscope/ragscope/eval"
)

// RunSummaries resolves ref as Run does and calls fn with at most limit of
// its results, those of the samples from index from on, in index order,
// each with only what a table of results needs (see summary.Fields); next
// is the index to ask for next, -1 when there are no more. The result is
// one value reused for every call: fn must not keep it nor anything of its
// maps, and its ID, Question and Answer are the stored bytes, valid only
// during the call: fn copies what it keeps of them (its other strings it
// may keep). An error of fn stops the walk and is returned.
//
// It is RunPage for a table of a million rows: the stored JSON is read in
// place, and the contexts, the reference and the traces the table does not
// show are skipped over rather than decoded, so a page costs a scan of its
// bytes and no garbage but the texts kept.
func (db *DB) RunSummaries(ref string, from, limit int, fn func(*eval.Result) error) (next int, err error) {
	next = -1
	read := 0
	defer func() { db.res.Note(db.bolt, read) }()
	var fnErr error
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
			if fnErr = fn(r); fnErr != nil {
				return false, fnErr
			}
			return true, nil
		})
	})
	if fnErr != nil {
		return -1, fnErr // fn's own, not the file's: no damage to note
	}
	if err != nil {
		return -1, err
	}
	return next, nil
}

// SummaryDecoder reads a summary that was sent as JSON (a holder serves
// RunSummaries to its clients that way) as RunSummaries gives it: one
// result reused for every call, its ID, Question and Answer views of the
// bytes decoded.
type SummaryDecoder struct{ d summary.Decoder }

// Decode reads b, which must stay unchanged while the result is used.
func (s *SummaryDecoder) Decode(b []byte) (*eval.Result, error) { return s.d.Decode(b) }
