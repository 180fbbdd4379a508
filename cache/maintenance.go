package cache

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/ragscope/ragscope/cache/internal/entry"
	"github.com/ragscope/ragscope/eval/report"
	bolt "go.etcd.io/bbolt"
)

// KindStats is the size of one kind of entry.
type KindStats struct {
	Kind    string `json:"kind"`
	Entries int    `json:"entries"`
	Bytes   int64  `json:"bytes"` // keys and values, without bbolt's page overhead
}

// Stats describes the database for `ragscope cache stats`.
type Stats struct {
	Path     string      `json:"path"`
	FileSize int64       `json:"file_size"`
	Kinds    []KindStats `json:"kinds"` // chat, embedding, runs, results, labels, in that order
	// LastRun is the newest recorded run (its Calls give the hit rate of the
	// last run), nil when none is recorded.
	LastRun *report.RunInfo `json:"last_run,omitempty"`
}

// statsKinds are the kinds in the order stats shows them; each kind's
// bucket is named after it.
var statsKinds = []string{KindChat, KindEmbedding, KindRuns, KindResults, KindLabels}

// Stats counts entries and bytes per kind.
func (db *DB) Stats() (Stats, error) {
	st := Stats{Path: db.path}
	if fi, err := os.Stat(db.path); err == nil {
		st.FileSize = fi.Size()
	}
	err := db.view(func(tx *bolt.Tx) error {
		for _, kind := range statsKinds {
			ks := KindStats{Kind: kind}
			if b := tx.Bucket([]byte(kind)); b != nil {
				_ = b.ForEach(func(k, v []byte) error {
					ks.Entries++
					ks.Bytes += int64(len(k) + len(v))
					return nil
				})
			}
			st.Kinds = append(st.Kinds, ks)
		}
		runs, err := readRuns(tx, db.path)
		if err != nil {
			return err
		}
		if len(runs) > 0 {
			st.LastRun = &runs[0]
		}
		return nil
	})
	return st, err
}

// Clear removes call-cache entries stored more than olderThan ago (and
// those too damaged to carry a time), or all of them when olderThan is 0.
// Runs are history, not cache: never removed. The file does not shrink
// until Compact.
func (db *DB) Clear(olderThan time.Duration) (removed int, err error) {
	if olderThan < 0 {
		return 0, fmt.Errorf("--older-than must not be negative (got %s)", olderThan)
	}
	cutoff := db.now().Add(-olderThan)
	err = db.update(func(tx *bolt.Tx) error {
		removed = 0 // the function may run more than once
		for _, name := range [][]byte{bucketChat, bucketEmbedding} {
			b := tx.Bucket(name)
			if olderThan == 0 {
				removed += b.Stats().KeyN
				if err := tx.DeleteBucket(name); err != nil {
					return err
				}
				if _, err := tx.CreateBucket(name); err != nil {
					return err
				}
				continue
			}
			var old [][]byte
			_ = b.ForEach(func(k, v []byte) error {
				if t, ok := entry.Time(v); !ok || t.Before(cutoff) {
					old = append(old, bytes.Clone(k))
				}
				return nil
			})
			if err := deleteAll(b, old); err != nil {
				return err
			}
			removed += len(old)
		}
		return nil
	})
	return removed, err
}

// compactTxSize bounds each transaction of the copy so a large database is
// compacted in bounded memory.
const compactTxSize = 64 << 20

// Compact rewrites the database at path into a fresh file without free
// pages and renames it into place, under the database's lock throughout.
// It returns the file sizes before and after.
func Compact(path string, opt Options) (before, after int64, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, 0, fmt.Errorf("database %s does not exist; nothing to compact", path)
		}
		return 0, 0, fmt.Errorf("database %s: %w", path, err)
	}
	before = fi.Size()
	opt.ReadOnly = false
	src, err := Open(path, opt)
	if err != nil {
		return before, 0, err
	}
	defer func() {
		if cerr := src.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("close database %s: %w", path, cerr)
		}
	}()

	tmp := path + ".compact-tmp"
	_ = os.Remove(tmp) // left by an interrupted compaction; we hold the lock
	dst, err := bolt.Open(tmp, fi.Mode().Perm(), &bolt.Options{Timeout: defaultTimeout, FreelistType: bolt.FreelistMapType})
	if err != nil {
		// The copy is written beside the file, to be renamed over it.
		return before, 0, fmt.Errorf("compact %s: create %s: %w (the copy is written in the database's directory, which must be writable and hold a second copy; the database is unchanged)", path, tmp, err)
	}
	err = guard(path, func() error { return bolt.Compact(dst, src.bolt, compactTxSize) })
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(tmp)
		return before, 0, fmt.Errorf("compact %s: %w (the database is unchanged)", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		_ = os.Remove(tmp)
		return before, 0, fmt.Errorf("compact %s: replace the file: %w (the database is unchanged)", path, err)
	}
	syncDir(filepath.Dir(path))
	if fi, err := os.Stat(path); err == nil {
		after = fi.Size()
	}
	return before, after, nil
}

// syncDir makes a rename durable; failure only weakens durability of the
// rename on some filesystems, so it is not reported.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
