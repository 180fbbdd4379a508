package cache

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/cache/internal/summary"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// Results are keyed "<run id>/<sample index, zero padded>" so that one
// cursor seek lists a run's results in sample order.
const (
	resultSep   = '/'
	indexDigits = 10
)

// LatestRun is the run reference that names the newest run.
const LatestRun = "latest"

// NewRunID returns an id that sorts by start time (UTC, to the second) with a
// random suffix that keeps ids made in the same second distinct.
func (db *DB) NewRunID() (string, error) {
	stamp := db.now().UTC().Format("20060102-150405")
	for {
		var b [2]byte
		_, _ = rand.Read(b[:])
		id := stamp + "-" + hex.EncodeToString(b[:])
		exists := false
		_ = db.view(func(tx *bolt.Tx) error {
			exists = get(tx, bucketRuns, id) != nil
			return nil
		})
		if !exists {
			return id, nil
		}
	}
}

func checkRunID(id string) error {
	switch {
	case id == "":
		return errors.New("run id is empty")
	case id == LatestRun:
		return fmt.Errorf("run id %q is reserved for the newest run", id)
	case strings.ContainsRune(id, resultSep):
		return fmt.Errorf("run id %q contains %q", id, resultSep)
	}
	return nil
}

// PutRun creates or replaces the run record; it is durable when it returns.
func (db *DB) PutRun(info report.RunInfo) error {
	if err := checkRunID(info.ID); err != nil {
		return err
	}
	v, err := json.Marshal(info)
	if err != nil {
		return fmt.Errorf("run %s: %w", info.ID, err)
	}
	err = db.update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketRuns).Put([]byte(info.ID), v)
	})
	if err == nil {
		db.hub.add(info.ID, -1)
	}
	return err
}

func resultKey(runID string, index int) []byte {
	return fmt.Appendf(nil, "%s%c%0*d", runID, resultSep, indexDigits, index)
}

// PutResult stores one sample's result under its run, replacing an earlier
// one of the same index; it is durable when it returns, and concurrent calls
// share commits.
func (db *DB) PutResult(runID string, r *eval.Result) error {
	if r == nil {
		return fmt.Errorf("run %s: nil result", runID)
	}
	return db.PutResults(runID, []*eval.Result{r})
}

// encodeResult checks a result of a run and gives its key and value.
func encodeResult(runID string, r *eval.Result) (key, v []byte, err error) {
	if r == nil {
		return nil, nil, fmt.Errorf("run %s: nil result", runID)
	}
	if r.Index < 0 {
		return nil, nil, fmt.Errorf("run %s: result has negative sample index %d", runID, r.Index)
	}
	if err := checkRunID(runID); err != nil {
		return nil, nil, err
	}
	if v, err = json.Marshal(r); err != nil {
		return nil, nil, fmt.Errorf("run %s, sample %d: cannot encode the result: %w", runID, r.Index, err)
	}
	return resultKey(runID, r.Index), v, nil
}

// runRecorded refuses results of a run that has no record.
func (db *DB) runRecorded(tx *bolt.Tx, runID string) error {
	if tx.Bucket(bucketRuns).Get([]byte(runID)) == nil {
		return fmt.Errorf("run %s is not recorded in %s; record it with PutRun before its results", runID, db.path)
	}
	return nil
}

// PutResults stores many results of a run in one transaction (a re-run
// copying its parent's unchanged samples); nil entries are skipped.
func (db *DB) PutResults(runID string, rs []*eval.Result) error {
	if err := checkRunID(runID); err != nil {
		return err
	}
	keys := make([][]byte, 0, len(rs))
	vals := make([][]byte, 0, len(rs))
	indexes := make([]int, 0, len(rs))
	for _, r := range rs {
		if r == nil {
			continue
		}
		k, v, err := encodeResult(runID, r)
		if err != nil {
			return err
		}
		keys = append(keys, k)
		vals = append(vals, v)
		indexes = append(indexes, r.Index)
	}
	err := db.update(func(tx *bolt.Tx) error {
		if err := db.runRecorded(tx, runID); err != nil {
			return err
		}
		return putAll(tx.Bucket(bucketResults), keys, vals)
	})
	if err == nil {
		db.hub.add(runID, indexes...)
	}
	return err
}

// Runs lists the recorded runs, newest first.
func (db *DB) Runs() ([]report.RunInfo, error) {
	var runs []report.RunInfo
	err := db.view(func(tx *bolt.Tx) error {
		var err error
		runs, err = readRuns(tx, db.path)
		return err
	})
	return runs, err
}

// runsWithPrefix resolves ref when it is a run id or the prefix of exactly
// one; found is false when it is neither (resolveRun then says why).
func runsWithPrefix(tx *bolt.Tx, path, ref string) (report.RunInfo, bool, error) {
	b := tx.Bucket(bucketRuns)
	if b == nil {
		return report.RunInfo{}, false, nil
	}
	c := b.Cursor()
	k, v := c.Seek([]byte(ref))
	if k == nil || !strings.HasPrefix(string(k), ref) {
		return report.RunInfo{}, false, nil
	}
	if string(k) != ref {
		if k2, _ := c.Next(); k2 != nil && strings.HasPrefix(string(k2), ref) {
			return report.RunInfo{}, false, nil // ambiguous
		}
	}
	var info report.RunInfo
	if err := json.Unmarshal(v, &info); err != nil {
		return report.RunInfo{}, false, damaged(path, "run %s is unreadable: %v", k, err)
	}
	return info, true, nil
}

func readRuns(tx *bolt.Tx, path string) ([]report.RunInfo, error) {
	b := tx.Bucket(bucketRuns)
	if b == nil {
		return nil, nil
	}
	var runs []report.RunInfo
	err := b.ForEach(func(k, v []byte) error {
		var info report.RunInfo
		if err := json.Unmarshal(v, &info); err != nil {
			return damaged(path, "run %s is unreadable: %v", k, err)
		}
		runs = append(runs, info)
		return nil
	})
	slices.SortStableFunc(runs, func(a, b report.RunInfo) int {
		return cmp.Or(b.StartedAt.Compare(a.StartedAt), strings.Compare(b.ID, a.ID))
	})
	return runs, err
}

// Run resolves ref (an id, a unique prefix of one, or "latest") and returns
// the run with its results indexed by sample: the slice has one slot per
// sample of the dataset, nil for samples that never finished.
func (db *DB) Run(ref string) (report.RunInfo, []*eval.Result, error) {
	var (
		info    report.RunInfo
		results []*eval.Result
	)
	err := db.view(func(tx *bolt.Tx) error {
		var err error
		if info, err = resolveRun(tx, db.path, ref); err != nil {
			return err
		}
		byIndex, err := readResults(tx, db.path, info.ID)
		if err != nil {
			return err
		}
		n := info.Samples
		for i := range byIndex {
			n = max(n, i+1)
		}
		bound := info.Samples
		if info.Subset != nil {
			// A sample's results keep their indexes in the dataset.
			bound = max(bound, info.Subset.Of)
		}
		if n > bound+len(byIndex) {
			return damaged(db.path, "run %s has a result for sample %d, beyond its %d samples", info.ID, n-1, info.Samples)
		}
		results = make([]*eval.Result, n)
		for i, r := range byIndex {
			results[i] = r
		}
		return nil
	})
	if err != nil {
		return report.RunInfo{}, nil, err
	}
	return info, results, nil
}

// RunPage resolves ref as Run does and returns the run record with at most
// limit results from sample index from on, in index order, so that a run
// is never in memory at once; next is the index to ask for next, -1 after
// the last. limit 0 returns the record alone.
func (db *DB) RunPage(ref string, from, limit int) (info report.RunInfo, page []*eval.Result, next int, err error) {
	next = -1
	read := 0
	// Outside the read transaction: trimming takes one of its own.
	defer func() { db.res.Note(db.bolt, read) }()
	err = db.view(func(tx *bolt.Tx) error {
		var err error
		if info, err = resolveRun(tx, db.path, ref); err != nil || limit <= 0 {
			return err
		}
		// The values are copied here, under the damage guard (a fault in
		// the mapping must be read here); they are decoded after, on
		// every core (decodeResults): decoding is most of a report's time.
		var raw []rawResult
		var werr error
		next, read, werr = walkResults(tx, db.path, info.ID, from, limit, func(idx int, v []byte) error {
			raw = append(raw, rawResult{idx: idx, v: bytes.Clone(v)})
			return nil
		})
		// An undecodable value before a walk error is the error the
		// walk, decoding as it went, would have stopped at.
		page, err = decodeResults(db.path, info.ID, raw)
		if err != nil {
			return err
		}
		return werr
	})
	if err != nil {
		return report.RunInfo{}, nil, -1, err
	}
	return info, page, next, nil
}

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
		next, read, err = walkResults(tx, db.path, info.ID, from, limit, func(idx int, v []byte) error {
			r, err := d.Decode(v)
			if err != nil {
				return damaged(db.path, "run %s, sample %d: unreadable result: %v", info.ID, idx, err)
			}
			return fn(r)
		})
		return err
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

func resolveRun(tx *bolt.Tx, path, ref string) (report.RunInfo, error) {
	if ref != LatestRun && ref != "" {
		// An id or a prefix of one is found by the keys alone: a report
		// pages through a run by its id, and a store of a thousand runs
		// must not decode every record for every page.
		if info, found, err := runsWithPrefix(tx, path, ref); err != nil || found {
			return info, err
		}
	}
	runs, err := readRuns(tx, path)
	if err != nil {
		return report.RunInfo{}, err
	}
	if len(runs) == 0 {
		return report.RunInfo{}, fmt.Errorf("no runs are recorded in %s yet; run an evaluation first (or pass the --db FILE it used)", path)
	}
	if ref == LatestRun {
		return runs[0], nil
	}
	if ref == "" {
		return report.RunInfo{}, fmt.Errorf("no run given; pass a run id or %q (`ragscope runs` lists them)", LatestRun)
	}
	// runsWithPrefix found an id or a unique prefix: ref is either none or
	// the prefix of several.
	var ids []string
	for _, r := range runs {
		if strings.HasPrefix(r.ID, ref) {
			ids = append(ids, r.ID)
		}
	}
	n := len(ids)
	if n == 0 {
		return report.RunInfo{}, fmt.Errorf("no run %q in %s; `ragscope runs` lists the recorded runs", ref, path)
	}
	if n > 5 {
		ids = append(ids[:5], "...")
	}
	return report.RunInfo{}, fmt.Errorf("run %q is ambiguous in %s: it starts %d runs (%s); give more of the id", ref, path, n, strings.Join(ids, ", "))
}

func readResults(tx *bolt.Tx, path, runID string) (map[int]*eval.Result, error) {
	out := map[int]*eval.Result{}
	_, _, err := walkResults(tx, path, runID, 0, -1, func(idx int, v []byte) error {
		r, err := decodeResult(path, runID, idx, v)
		out[idx] = r
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// walkResults calls fn with at most limit (all when negative) of run
// runID's stored results from sample index from on, in index order, until
// fn returns an error. next is the index of the result after them, -1
// after the last; read counts the bytes of those given to fn.
func walkResults(tx *bolt.Tx, path, runID string, from, limit int, fn func(idx int, v []byte) error) (next, read int, err error) {
	b := tx.Bucket(bucketResults)
	if b == nil {
		return -1, 0, nil
	}
	prefix := append([]byte(runID), resultSep)
	start := prefix // from the first key, malformed ones ("run/", "run/-1") included
	if from > 0 {
		start = resultKey(runID, from)
	}
	c := b.Cursor()
	n := 0
	for k, v := c.Seek(start); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		idx, err := strconv.Atoi(string(k[len(prefix):]))
		if err != nil || idx < 0 {
			return -1, read, damaged(path, "result key %q of run %s is malformed", k, runID)
		}
		if n == limit {
			return idx, read, nil
		}
		n++
		read += len(k) + len(v)
		if err := fn(idx, v); err != nil {
			return -1, read, err
		}
	}
	return -1, read, nil
}

// rawResult is a stored result's index and a copy of its value.
type rawResult struct {
	idx int
	v   []byte
}

// decodeResults decodes the values, in parallel for more than a few, and
// returns the first error in index order, as decoding in turn would. A
// panic is raised again in the caller's goroutine, under the damage guard.
func decodeResults(path, runID string, raw []rawResult) ([]*eval.Result, error) {
	out := make([]*eval.Result, len(raw))
	errs := make([]error, len(raw))
	workers := max(1, min(runtime.GOMAXPROCS(0), len(raw)/minDecodeShare, 8))
	var wg sync.WaitGroup
	panics := make([]any, workers)
	share := (len(raw) + workers - 1) / workers
	for w := range workers {
		lo, hi := w*share, min((w+1)*share, len(raw))
		wg.Go(func() {
			defer func() { panics[w] = recover() }()
			for i := lo; i < hi; i++ {
				out[i], errs[i] = decodeResult(path, runID, raw[i].idx, raw[i].v)
			}
		})
	}
	wg.Wait()
	// Shares in order: an error of a share comes before its panic (the
	// worker returned the error and went on, then panicked), and both
	// before anything of a later share.
	for w, p := range panics {
		for i := w * share; i < len(raw) && i < (w+1)*share; i++ {
			if errs[i] != nil {
				return nil, errs[i]
			}
		}
		if p != nil {
			panic(p)
		}
	}
	return out, nil
}

// minDecodeShare is the least results a decoding goroutine is given.
const minDecodeShare = 32

func decodeResult(path, runID string, idx int, v []byte) (*eval.Result, error) {
	r := new(eval.Result)
	if err := json.Unmarshal(v, r); err != nil {
		return nil, damaged(path, "run %s, sample %d: unreadable result: %v", runID, idx, err)
	}
	return r, nil
}

// DeleteRuns removes the runs with these exact ids and all their results,
// in one transaction, and says how many records and results it removed.
// An unknown id is skipped, so that a deletion repeated after the loss of
// a holder succeeds. Refusing a live run is the caller's business.
func (db *DB) DeleteRuns(ids []string) (runs, results int, err error) {
	for _, id := range ids {
		if err := checkRunID(id); err != nil {
			return 0, 0, err
		}
	}
	if len(ids) == 0 {
		return 0, 0, nil
	}
	err = db.update(func(tx *bolt.Tx) error {
		runs, results = 0, 0 // the function may run more than once
		rb, resb := tx.Bucket(bucketRuns), tx.Bucket(bucketResults)
		for _, id := range slices.Compact(slices.Sorted(slices.Values(ids))) {
			prefix := append([]byte(id), resultSep)
			var keys [][]byte
			c := resb.Cursor()
			for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Next() {
				keys = append(keys, bytes.Clone(k))
			}
			if err := deleteAll(resb, keys); err != nil {
				return err
			}
			results += len(keys)
			if rb.Get([]byte(id)) != nil {
				if err := rb.Delete([]byte(id)); err != nil {
					return err
				}
				runs++
			}
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("delete runs from %s: %w", db.path, err)
	}
	return runs, results, nil
}
