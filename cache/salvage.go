package cache

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ragscope/ragscope/cache/internal/entry"
	"github.com/ragscope/ragscope/eval/report"
	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/cache/internal/boltfile"
)

// Salvage methods, as SalvageReport.Method names them.
const (
	// SalvageTree: the tree of the file was intact and copied whole.
	SalvageTree = "tree"
	// SalvageTreeAndScan: the tree was damaged; what it still reached was
	// copied, and every page was scanned for leaf pages to fill the gaps.
	SalvageTreeAndScan = "tree+scan"
	// SalvageScan: no meta page could be read; only the page scan ran.
	SalvageScan = "scan"
)

// SalvageReport says what Salvage copied and what it could not.
type SalvageReport struct {
	Source string `json:"source"`
	Dest   string `json:"dest"`
	Method string `json:"method"`
	// Kinds: runs, results, chat, embedding, labels, in that order.
	Kinds []SalvageCount `json:"kinds"`
	// StubRuns are runs whose record was lost but some results found: a
	// stand-in record (dataset "(salvaged)") lets them be listed and reported.
	StubRuns []string `json:"stub_runs,omitempty"`
	// FromScan counts the entries copied that only the page scan found
	// (some may have been deleted before the damage).
	FromScan int `json:"from_scan"`
	// BadPages counts pages the tree refers to that could not be read
	// (missing from a truncated file, zeroed, overwritten).
	BadPages int `json:"bad_pages"`
	// Unfinished counts copied runs that never finished: results they lack
	// are not counted as lost.
	Unfinished int `json:"unfinished"`
	// Problems are what the walk of the tree found (at most 200 of
	// ProblemCount).
	Problems     []string `json:"problems,omitempty"`
	ProblemCount int      `json:"problem_count"`
}

// SalvageCount counts one kind of entry.
type SalvageCount struct {
	Kind   string `json:"kind"`
	Copied int    `json:"copied"`
	// Lost counts entries known to be lost: found but unreadable, plus for
	// runs the records replaced by stubs, plus for results the samples
	// missing from runs that had finished.
	Lost int `json:"lost"`
	// AtLeast says Lost is only a lower bound: pages were lost, and what
	// they held left no trace.
	AtLeast bool `json:"at_least,omitempty"`
}

// Salvage copies every run, result, cache entry and label that can still be
// read (and, for cache entries, whose request still hashes to its key) from
// the database at src, however damaged, into a new database at dst. It
// never writes to src and refuses a dst that exists.
func Salvage(src, dst string) (SalvageReport, error) {
	rep := SalvageReport{Source: src, Dest: dst}
	if dst == "" {
		return rep, errors.New("salvage needs a new file to write (--out NEW)")
	}
	if _, err := os.Lstat(dst); err == nil {
		return rep, fmt.Errorf("%s already exists: salvage writes a new database and never replaces a file; pass another --out, or remove it first: %w", dst, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return rep, fmt.Errorf("%s: %w", dst, err)
	}
	f, m, err := openForReading(src)
	if err != nil {
		return rep, err
	}
	defer f.Close()
	defer m.Unmap()

	s := newSalvager()
	if err := guard(src, func() error { s.collect(m.Data); return nil }); err != nil {
		return rep, fmt.Errorf("salvage %s: reading the file failed (did it change meanwhile?): %w", src, err)
	}
	rep.Method, rep.BadPages = s.method, s.badPages
	rep.Problems, rep.ProblemCount = s.ps.Texts(), s.ps.N
	if s.entries() == 0 {
		why := "no run, result, cache entry or label could be read"
		if s.foreign {
			why = "it is not a ragscope database"
		}
		return rep, fmt.Errorf("nothing to salvage in %s: %s; %s was not written", src, why, dst)
	}
	s.finish(&rep)
	return rep, s.write(dst)
}

// found is one entry, copied out of the file.
type found struct {
	value    []byte
	fromTree bool
	rank     int64 // among copies found by the scan, the higher is kept
}

type salvager struct {
	kinds      map[string]map[string]*found // kind -> key -> entry
	unreadable map[string]map[string]bool   // kind -> keys found damaged in the tree
	ps         boltfile.Problems
	badPages   int
	method     string
	foreign    bool
}

func newSalvager() *salvager {
	s := &salvager{kinds: map[string]map[string]*found{}, unreadable: map[string]map[string]bool{}}
	for _, k := range checkKinds {
		s.kinds[k] = map[string]*found{}
		s.unreadable[k] = map[string]bool{}
	}
	return s
}

func (s *salvager) entries() int {
	n := 0
	for _, m := range s.kinds {
		n += len(m)
	}
	return n
}

// collect walks the tree, and scans the pages when the tree is damaged.
func (s *salvager) collect(data []byte) {
	bf := boltfile.Read(data)
	pageSize := bf.PageSize
	if bf.Cur >= 0 {
		w := boltfile.NewWalker(bf)
		w.Visit = func(bucket string, k, v []byte) {
			if bucket == "meta" && string(k) == metaFormatKey && string(v) != metaFormat {
				s.foreign = true
			}
			s.offer(bucket, k, v, true)
		}
		w.Enter = func(bucket string) {
			if !strings.Contains(bucket, "/") && !isOurBucket(bucket) {
				s.foreign = true
			}
		}
		if w.CheckMeta() {
			w.Walk()
		}
		s.ps, s.badPages = w.Problems, w.BadPages
		if w.Problems.N == 0 {
			s.method = SalvageTree
			return
		}
		s.method = SalvageTreeAndScan
	} else {
		s.method = SalvageScan
		s.ps.Addf("", 0, "no meta page could be read (%v)", bf.Metas[0].Err)
		pageSize = boltfile.GuessPageSize(data)
	}
	// Every page that says it is a leaf, reached or not: pages cut off by
	// a damaged branch, and older copies of pages rewritten since, which
	// may hold what the lost pages held.
	boltfile.Scan(data, pageSize, func(bucket string, k, v []byte) { s.offer(bucket, k, v, false) })
}

// offer considers one key/value pair of bucket ("" when the scan does not
// know it) and keeps a copy if it decodes.
func (s *salvager) offer(bucket string, k, v []byte, fromTree bool) {
	kinds := []string{bucket}
	if bucket == "" {
		kinds = guessKinds(k)
	}
	for _, kind := range kinds {
		rank, err := decodeAs(kind, k, v)
		if err == errNotOurs {
			return
		}
		if err != nil {
			if fromTree {
				s.unreadable[kind][string(k)] = true
			}
			continue
		}
		s.keep(kind, string(k), &found{value: bytes.Clone(v), fromTree: fromTree, rank: rank})
		return
	}
}

func (s *salvager) keep(kind, key string, f *found) {
	old := s.kinds[kind][key]
	switch {
	case old == nil:
	case old.fromTree && !f.fromTree:
		return
	case old.fromTree == f.fromTree && (old.rank > f.rank || old.rank == f.rank && len(old.value) >= len(f.value)):
		return
	}
	s.kinds[kind][key] = f
}

var errNotOurs = errors.New("not an entry of ours")

// guessKinds says which buckets a key found by the scan may belong to.
func guessKinds(k []byte) []string {
	if _, _, ok := splitResultKey(k); ok {
		return []string{KindResults}
	}
	if len(k) == 64 {
		if _, err := hex.DecodeString(string(k)); err == nil {
			return []string{KindChat, KindEmbedding, KindLabels}
		}
	}
	if json.Valid(k) || len(k) > 200 {
		return nil
	}
	return []string{KindRuns}
}

// decodeAs checks one entry as an entry of kind and ranks it: among copies
// of the same key found by the page scan, the more complete one is kept (a
// finished run over a running one, a result with more metrics over a
// partial one, the newer cache entry).
func decodeAs(kind string, k, v []byte) (int64, error) {
	switch kind {
	case KindRuns:
		info, err := decodeRunValue(k, v)
		if err != nil {
			return 0, err
		}
		rank := int64(info.Calls.Sent() + info.Calls.CacheHits)
		if info.FinishedAt != nil {
			rank += 1 << 40
		}
		return rank, nil
	case KindResults:
		_, r, err := decodeResultValue(k, v)
		if err != nil {
			return 0, err
		}
		return int64(len(r.Status)), nil
	case KindChat, KindEmbedding:
		verify := verifyChatValue
		if kind == KindEmbedding {
			verify = verifyEmbeddingValue
		}
		if err := verify(k, v); err != nil {
			return 0, err
		}
		t, _ := entry.Time(v)
		return t.UnixNano(), nil
	case KindLabels:
		l, err := decodeLabelValue(k, v)
		if err != nil {
			return 0, err
		}
		return l.UpdatedAt.UnixNano(), nil
	}
	return 0, errNotOurs // the meta bucket, or another program's
}

// finish decides the stub records and the counts.
func (s *salvager) finish(rep *SalvageReport) {
	runInfo := map[string]report.RunInfo{}
	for key, f := range s.kinds[KindRuns] {
		runInfo[key], _ = decodeRunValue([]byte(key), f.value)
	}
	results := map[string][]int{} // run id -> indexes found
	for key := range s.kinds[KindResults] {
		run, idx, _ := splitResultKey([]byte(key))
		results[run] = append(results[run], idx)
	}
	// A finished run's missing samples count as lost results, the damaged
	// ones among them included; an unfinished run's do not.
	finished := func(run string) bool {
		info, ok := runInfo[run]
		return ok && info.FinishedAt != nil && !info.Cancelled
	}
	lostResults := 0
	for _, info := range runInfo {
		if !finished(info.ID) {
			rep.Unfinished++
			continue
		}
		lostResults += max(0, info.Samples-len(results[info.ID]))
	}
	// A stub stands for a run whose results were found but not its record;
	// it is not among runInfo, which is of records found.
	var stubs []string
	for run, idxs := range results {
		if _, ok := runInfo[run]; ok {
			continue
		}
		maxIdx := slices.Max(idxs) // a run here has a result
		stubs = append(stubs, run)
		lostResults += maxIdx + 1 - len(idxs)
		info := report.RunInfo{ID: run, Dataset: "(salvaged)", Samples: maxIdx + 1,
			Config: map[string]string{"salvaged": "the run record was lost; rebuilt from its results"}}
		if len(run) >= 15 {
			if t, err := time.Parse("20060102-150405", run[:15]); err == nil {
				info.StartedAt = t // run ids start with their start time
			}
		}
		v, _ := json.Marshal(info)
		s.kinds[KindRuns][run] = &found{value: v}
	}
	slices.Sort(stubs)
	for _, kind := range checkKinds {
		c := SalvageCount{Kind: kind, Copied: len(s.kinds[kind]), AtLeast: s.badPages > 0 || s.method == SalvageScan}
		for key := range s.unreadable[kind] {
			if s.kinds[kind][key] != nil {
				continue
			}
			if run, _, _ := splitResultKey([]byte(key)); kind != KindResults || !finished(run) {
				c.Lost++
			}
		}
		switch kind {
		case KindRuns:
			c.Copied -= len(stubs)
			c.Lost += len(stubs)
		case KindResults:
			c.Lost += lostResults
		}
		for key, f := range s.kinds[kind] {
			if !f.fromTree && !(kind == KindRuns && slices.Contains(stubs, key)) {
				rep.FromScan++
			}
		}
		rep.Kinds = append(rep.Kinds, c)
	}
	rep.StubRuns = stubs
}

// write creates the new database beside dst and moves it into place only
// once it is complete, so that a failed salvage leaves no half file.
func (s *salvager) write(dst string) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return fmt.Errorf("salvage: create the directory of %s: %w", dst, err)
	}
	tmp := fmt.Sprintf("%s.salvage-%d.tmp", dst, os.Getpid())
	_ = os.Remove(tmp)
	db, err := Open(tmp, Options{})
	if err != nil {
		return fmt.Errorf("salvage: %w", err)
	}
	err = s.fill(db)
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("salvage: write %s: %w", dst, err)
	}
	// Link, unlike rename, refuses to replace a file that appeared since.
	if err := os.Link(tmp, dst); err != nil {
		if _, serr := os.Lstat(dst); serr == nil {
			_ = os.Remove(tmp)
			return fmt.Errorf("%s appeared while salvaging; the salvaged copy was not written: %w", dst, err)
		}
		if err := os.Rename(tmp, dst); err != nil {
			_ = os.Remove(tmp)
			return fmt.Errorf("salvage: move the new database to %s: %w", dst, err)
		}
	} else {
		_ = os.Remove(tmp)
	}
	syncDir(filepath.Dir(dst))
	return nil
}

func (s *salvager) fill(db *DB) error {
	const chunk = 2000
	for _, kind := range checkKinds {
		entries := s.kinds[kind]
		for part := range slices.Chunk(slices.Sorted(maps.Keys(entries)), chunk) {
			err := guardedUpdate(db.path, db.bolt, func(tx *bolt.Tx) error {
				b := tx.Bucket([]byte(kind)) // named after its kind
				b.FillPercent = 0.9
				for _, k := range part {
					if err := b.Put([]byte(k), entries[k].value); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}
