package cache

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/eval"
)

// The state of log watchers (ragscope watch), one sub-bucket per stream
// (a watcher's set of log arguments): where it is in each file, the hash
// of every record it took, and the records not yet evaluated. Apart from
// the call cache, so that clearing it does not make a watcher start over.
var (
	bucketWatch   = []byte("follow")
	watchFiles    = []byte("files")
	watchSeen     = []byte("seen")
	watchPending  = []byte("pending")
	watchMetaKey  = []byte("meta")
	errNoWatchRun = errors.New("no run")
)

// WatchFile is where a watcher is in one log file, known by its device,
// inode and first bytes, so that a rename is followed and a reused inode
// or a truncated file is read from its start.
type WatchFile struct {
	Key      string `json:"key"` // "dev:ino"
	Path     string `json:"path"`
	Print    string `json:"print,omitempty"` // sha256 of the first PrintLen bytes, hex
	PrintLen int    `json:"print_len,omitempty"`
	Offset   int64  `json:"offset"`
	Line     int    `json:"line"`
	// Done marks a compressed rotated file read whole: never read again.
	Done bool `json:"done,omitempty"`
}

// WatchMeta is the run a watcher's records go to.
type WatchMeta struct {
	RunID string `json:"run_id"`
	// Window is the start of the run's window (a day, or --window).
	Window time.Time `json:"window"`
	// Next is the sample index the next record taken gets.
	Next int `json:"next"`
}

// WatchRecord is one record a watcher took: its hash, its run and index,
// and the sample itself, kept until its result is stored so that a restart
// evaluates it even once its file has rotated away.
type WatchRecord struct {
	Hash   string      `json:"hash"` // hex, 16 bytes
	RunID  string      `json:"run_id,omitempty"`
	Index  int         `json:"index"`
	Sample eval.Sample `json:"sample"`
	File   string      `json:"file,omitempty"`
	Line   int         `json:"line,omitempty"`
	ReadAt time.Time   `json:"read_at"`
}

// WatchState is what a watcher resumes from.
type WatchState struct {
	Meta    *WatchMeta    `json:"meta,omitempty"`
	Files   []WatchFile   `json:"files,omitempty"`
	Pending []WatchRecord `json:"pending,omitempty"`
}

// WatchAdmit is one step of a watcher: the records read since the last
// step and where the files are after them, committed in one transaction
// so that a file's position never moves past a record not yet taken.
type WatchAdmit struct {
	// RunID and Window name the run the records go to; when they differ
	// from the stored meta a new run starts at index 0.
	RunID  string        `json:"run_id"`
	Window time.Time     `json:"window"`
	Files  []WatchFile   `json:"files,omitempty"`
	Forget []string      `json:"forget,omitempty"` // file keys no longer followed
	Take   []WatchRecord `json:"take,omitempty"`
}

// WatchAdmitted says which records of a WatchAdmit were taken (with
// their indexes) and how many were repeats of records taken before.
type WatchAdmitted struct {
	Meta  WatchMeta     `json:"meta"`
	Taken []WatchRecord `json:"taken,omitempty"`
	Dups  int           `json:"dups"`
}

// WatchStore is the part of a Store that keeps watcher state.
type WatchStore interface {
	WatchLoad(stream string) (WatchState, error)
	WatchAdmit(stream string, a WatchAdmit) (WatchAdmitted, error)
	// WatchResult stores a taken record's result and marks the record
	// done in one transaction: a kill between the two cannot happen.
	WatchResult(stream, hash, runID string, r *eval.Result) error
}

// watchBucket is a stream's bucket, nil when it has none; create makes it
// and its sub-buckets (and those of a stream that lacks one).
func watchBucket(tx *bolt.Tx, stream string, create bool) (*bolt.Bucket, error) {
	if stream == "" {
		return nil, errors.New("watcher stream name is empty")
	}
	if !create {
		if top := tx.Bucket(bucketWatch); top != nil {
			return top.Bucket([]byte(stream)), nil
		}
		return nil, nil
	}
	top, err := tx.CreateBucketIfNotExists(bucketWatch)
	if err != nil {
		return nil, err
	}
	b, err := top.CreateBucketIfNotExists([]byte(stream))
	for _, name := range [][]byte{watchFiles, watchSeen, watchPending} {
		if err == nil {
			_, err = b.CreateBucketIfNotExists(name)
		}
	}
	return b, err
}

// WatchLoad reads a stream's state; an unknown stream has none.
func (db *DB) WatchLoad(stream string) (WatchState, error) {
	var st WatchState
	err := db.view(func(tx *bolt.Tx) error {
		b, err := watchBucket(tx, stream, false)
		if b == nil || err != nil {
			return err
		}
		if v := b.Get(watchMetaKey); v != nil {
			st.Meta = &WatchMeta{}
			if err := json.Unmarshal(v, st.Meta); err != nil {
				return fmt.Errorf("watcher state %s: %w", stream, err)
			}
		}
		if err := b.Bucket(watchFiles).ForEach(func(k, v []byte) error {
			var f WatchFile
			if err := json.Unmarshal(v, &f); err != nil {
				return fmt.Errorf("watcher state %s, file %s: %w", stream, k, err)
			}
			st.Files = append(st.Files, f)
			return nil
		}); err != nil {
			return err
		}
		return b.Bucket(watchPending).ForEach(func(k, v []byte) error {
			var r WatchRecord
			if err := json.Unmarshal(v, &r); err != nil {
				return fmt.Errorf("watcher state %s, pending record %x: %w", stream, k, err)
			}
			st.Pending = append(st.Pending, r)
			return nil
		})
	})
	return st, err
}

func watchHashKey(h string) ([]byte, error) {
	k, err := hex.DecodeString(h)
	if err != nil || len(k) == 0 {
		return nil, fmt.Errorf("watcher record hash %q is not hex", h)
	}
	return k, nil
}

// WatchAdmit commits one step of a watcher (see WatchAdmit).
func (db *DB) WatchAdmit(stream string, a WatchAdmit) (WatchAdmitted, error) {
	if err := checkRunID(a.RunID); len(a.Take) > 0 && err != nil {
		return WatchAdmitted{}, err
	}
	keys := make([][]byte, len(a.Take))
	for i, r := range a.Take {
		var err error
		if keys[i], err = watchHashKey(r.Hash); err != nil {
			return WatchAdmitted{}, err
		}
	}
	var out WatchAdmitted
	err := db.update(func(tx *bolt.Tx) error {
		// Set afresh on every attempt: a group commit may run this twice.
		out = WatchAdmitted{}
		b, err := watchBucket(tx, stream, true)
		if err != nil {
			return err
		}
		var meta WatchMeta
		if v := b.Get(watchMetaKey); v != nil {
			if err := json.Unmarshal(v, &meta); err != nil {
				return fmt.Errorf("watcher state %s: %w", stream, err)
			}
		}
		if a.RunID != "" && (meta.RunID != a.RunID || !meta.Window.Equal(a.Window)) {
			meta = WatchMeta{RunID: a.RunID, Window: a.Window}
		}
		files := b.Bucket(watchFiles)
		for _, k := range a.Forget {
			if err := files.Delete([]byte(k)); err != nil {
				return err
			}
		}
		for _, f := range a.Files {
			if err := putJSON(files, []byte(f.Key), f); err != nil {
				return err
			}
		}
		seen, pending := b.Bucket(watchSeen), b.Bucket(watchPending)
		for i, r := range a.Take {
			if seen.Get(keys[i]) != nil {
				out.Dups++
				continue
			}
			r.RunID, r.Index = meta.RunID, meta.Next
			r.Sample.Index = r.Index
			meta.Next++
			if err := seen.Put(keys[i], []byte(r.RunID+"/"+strconv.Itoa(r.Index))); err != nil {
				return err
			}
			if err := putJSON(pending, keys[i], r); err != nil {
				return err
			}
			out.Taken = append(out.Taken, r)
		}
		out.Meta = meta
		return putJSON(b, watchMetaKey, meta)
	})
	return out, err
}

// putJSON puts v, as JSON, under k in b.
func putJSON(b *bolt.Bucket, k []byte, v any) error {
	j, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(k, j)
}

// WatchResult stores the result of a taken record and removes it from
// the pending records, in one transaction.
func (db *DB) WatchResult(stream, hash, runID string, r *eval.Result) error {
	key, v, err := encodeResult(runID, r)
	if err != nil {
		return err
	}
	hk, err := watchHashKey(hash)
	if err != nil {
		return err
	}
	err = db.update(func(tx *bolt.Tx) error {
		b, err := watchBucket(tx, stream, false)
		if err != nil {
			return err
		}
		if b == nil {
			return fmt.Errorf("watcher state %s: %w", stream, errNoWatchRun)
		}
		if err := db.runRecorded(tx, runID); err != nil {
			return err
		}
		if err := tx.Bucket(bucketResults).Put(key, v); err != nil {
			return err
		}
		return b.Bucket(watchPending).Delete(hk)
	})
	if err == nil {
		db.hub.add(runID, r.Index)
	}
	return err
}
