// Package cache is ragscope's bbolt database: the content-addressed cache
// of judge calls and the run store (every run's configuration and every
// sample's result), in one file. Every write is committed (fsync'd) before
// its call returns, so a process killed at any moment loses no completed
// judge call and no finished sample.
package cache

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/ragscope/ragscope/cache/internal/boltfile"
	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// Bucket names. The call cache and the run store live in separate buckets so
// that clearing the cache never touches recorded runs.
var (
	bucketMeta      = []byte("meta")
	bucketChat      = []byte("chat")
	bucketEmbedding = []byte("embedding")
	bucketRuns      = []byte("runs")
	bucketResults   = []byte("results")

	allBuckets = [][]byte{bucketMeta, bucketChat, bucketEmbedding, bucketRuns, bucketResults, bucketLabels}
)

// schemaVersion is the layout of the database file (buckets and value
// encodings). A file written by a newer layout is refused rather than
// misread.
const schemaVersion = 1

const (
	metaFormatKey  = "format"
	metaFormat     = "ragscope-db"
	metaVersionKey = "version"
)

// ErrInUse is wrapped by Open's error when another process holds the database.
var ErrInUse = errors.New("database in use")

// ErrClosed is returned by operations on a closed DB.
var ErrClosed = errors.New("database is closed")

// Options tunes Open.
type Options struct {
	// Timeout is how long to wait for another process to release the file
	// (bbolt would otherwise wait forever). Zero means one second.
	Timeout time.Duration
	// ReadOnly opens the file for reading only (reports, listings). The file
	// must exist.
	ReadOnly bool
}

const defaultTimeout = time.Second

// DB is an open ragscope database.
type DB struct {
	bolt     *bolt.DB
	path     string
	readOnly bool
	w        *writer
	hub      *hub
	claims   claims
	res      boltfile.Resident
	// file is bbolt's descriptor of the database, for the state recorded
	// at Close (boltfile.State), unless damaged: this session met damage.
	file    *os.File
	damaged atomic.Bool
	// now is the clock for entry times and run ids; tests replace it.
	now func() time.Time
}

// DefaultPath is $XDG_CACHE_HOME/ragscope/ragscope.db, or
// ~/.cache/ragscope/ragscope.db when XDG_CACHE_HOME is unset.
func DefaultPath() (string, error) {
	if dir := os.Getenv("XDG_CACHE_HOME"); dir != "" {
		if !filepath.IsAbs(dir) {
			return "", fmt.Errorf("XDG_CACHE_HOME=%q is not an absolute path; set it to an absolute directory or pass --db FILE", dir)
		}
		return filepath.Join(dir, "ragscope", "ragscope.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return "", fmt.Errorf("cannot find the default database location (no XDG_CACHE_HOME and no home directory); pass --db FILE")
	}
	return filepath.Join(home, ".cache", "ragscope", "ragscope.db"), nil
}

// Open opens (creating it and its directory unless ReadOnly) the database at
// path. When another process holds it, Open gives up after opt.Timeout with
// an error that wraps ErrInUse and tells the user what to do.
func Open(path string, opt Options) (*DB, error) {
	if path == "" {
		return nil, errors.New("database path is empty; pass --db FILE")
	}
	if opt.Timeout <= 0 {
		opt.Timeout = defaultTimeout
	}
	if opt.ReadOnly {
		if _, err := os.Stat(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, fmt.Errorf("database %s does not exist yet (nothing has been cached or recorded there); run an evaluation first or pass --db FILE: %w", path, err)
			}
			return nil, fmt.Errorf("database %s: %w", path, err)
		}
	} else if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the directory of database %s: %w; pass --db FILE to use another location", path, err)
	}

	// Compact replaces the file by rename under its lock: a process that
	// waited for the lock would hold the old, unlinked file, so check that
	// the path still names the file we opened, and start over if not.
	for attempt := 0; ; attempt++ {
		bdb, file, err := openBolt(path, opt)
		if err != nil {
			return nil, err
		}
		same, serr := stillAtPath(file, path)
		if serr != nil || !same {
			_ = bdb.Close()
			if attempt < 3 && serr == nil {
				continue
			}
			if serr == nil {
				serr = errors.New("the file keeps being replaced")
			}
			return nil, fmt.Errorf("database %s: %w", path, serr)
		}
		db := &DB{bolt: bdb, path: path, readOnly: opt.ReadOnly, now: time.Now, hub: newHub(), file: file}
		// A file without a synced freelist was walked whole to rebuild it:
		// drop its pages before taking the base, or they count in it.
		boltfile.TrimMapping(bdb)
		db.res = boltfile.NewResident()
		if err := db.init(); err != nil {
			_ = bdb.Close()
			return nil, err
		}
		if !opt.ReadOnly {
			db.w = newWriter(bdb, &db.res, boltfile.NewFileWatch(file))
		}
		return db, nil
	}
}

func openBolt(path string, opt Options) (*bolt.DB, *os.File, error) {
	var file *os.File
	bopt := &bolt.Options{
		Timeout:      opt.Timeout,
		ReadOnly:     opt.ReadOnly,
		FreelistType: bolt.FreelistMapType,
		// The freelist is written with every commit: without it bbolt
		// rebuilds it at every open by reading every page, which puts a
		// whole database in the resident set of every process on it.
		NoFreelistSync: false,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := openChecked(path, opt.ReadOnly, opt.Timeout, name, flag, perm)
			file = f
			return f, err
		},
	}
	// Under guard: a damaged cache must produce a message, not a crash.
	var bdb *bolt.DB
	err := guard(path, func() (err error) {
		bdb, err = bolt.Open(path, 0o600, bopt)
		return err
	})
	if err == nil {
		return bdb, file, nil
	}
	switch {
	case errors.Is(err, ErrDamaged), errors.Is(err, errNotDatabase):
		return nil, nil, err
	case errors.Is(err, bolterrors.ErrTimeout):
		return nil, nil, fmt.Errorf("database %s is in use by another ragscope process (waited %s); wait for it to finish or pass --db FILE to use another database: %w",
			path, opt.Timeout, ErrInUse)
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrVersionMismatch),
		errors.Is(err, bolterrors.ErrChecksum):
		return nil, nil, fmt.Errorf("database %s is not a ragscope database or is corrupt (%v); move it aside or pass --db FILE to use another database", path, err)
	case errors.Is(err, fs.ErrPermission):
		return nil, nil, fmt.Errorf("database %s: permission denied; fix its permissions or pass --db FILE: %w", path, err)
	}
	return nil, nil, fmt.Errorf("cannot open database %s: %w", path, err)
}

func stillAtPath(f *os.File, path string) (bool, error) {
	if f == nil {
		return true, nil
	}
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	pi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return os.SameFile(fi, pi), nil
}

// init checks that the file is ours and creates the buckets. A bbolt file of
// another program is refused so that we never write into it.
func (db *DB) init() (err error) {
	// A database already at this layout is not written: an open that
	// commits nothing leaves the file's recorded state valid (see
	// boltfile.State), even for a session killed before its Close.
	current := false
	check := func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		if meta == nil {
			var foreign []string
			_ = tx.ForEach(func(name []byte, _ *bolt.Bucket) error {
				foreign = append(foreign, string(name))
				return nil
			})
			if len(foreign) > 0 {
				return fmt.Errorf("database %s is a bbolt file of another program (buckets %q); pass --db FILE to use another database", db.path, foreign)
			}
			return nil
		}
		if f := string(meta.Get([]byte(metaFormatKey))); f != metaFormat {
			return fmt.Errorf("database %s is not a ragscope database (format %q); pass --db FILE to use another database", db.path, f)
		}
		v := meta.Get([]byte(metaVersionKey))
		if len(v) != 1 || int(v[0]) > schemaVersion {
			return fmt.Errorf("database %s was written by a newer ragscope (layout version %v, this one reads %d); upgrade ragscope or pass --db FILE", db.path, v, schemaVersion)
		}
		current = v[0] == schemaVersion && !slices.ContainsFunc(allBuckets, func(name []byte) bool { return tx.Bucket(name) == nil })
		return nil
	}
	if err := db.view(check); err != nil || current || db.readOnly {
		return err
	}
	return guardedUpdate(db.path, db.bolt, func(tx *bolt.Tx) error {
		if err := check(tx); err != nil {
			return err
		}
		for _, name := range allBuckets {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("database %s: create bucket %s: %w", db.path, name, err)
			}
		}
		meta := tx.Bucket(bucketMeta)
		if err := meta.Put([]byte(metaFormatKey), []byte(metaFormat)); err != nil {
			return err
		}
		return meta.Put([]byte(metaVersionKey), []byte{schemaVersion})
	})
}

// Path is the file the database was opened from.
func (db *DB) Path() string { return db.path }

// ReadOnly reports a database opened read-only.
func (db *DB) ReadOnly() bool { return db.readOnly }

// Close waits for pending writes to commit and closes the file.
func (db *DB) Close() error {
	if db.w != nil {
		db.w.close()
		// Still under our exclusive lock: what bbolt wrote this session is
		// sound, so the next open need not walk it.
		if !db.damaged.Load() && db.w.watch.Unchanged() {
			// Waiting a clock tick to record is worth it only for a file
			// whose walk costs more (see boltfile.RecordVerified).
			fi, err := db.file.Stat()
			boltfile.RecordVerified(db.path, db.file, err == nil && fi.Size() >= waitFromBytes)
		}
	}
	if db.damaged.Load() {
		// Met damage that the record's stamps could not show (a disk's bit
		// rot sets no time): the next open walks, whoever it is.
		boltfile.ForgetVerified(db.path)
	}
	return db.bolt.Close()
}

// waitFromBytes: below this a walk takes less than the wait (tests lower it).
var waitFromBytes int64 = 64 << 20

// noteDamage remembers that err reported damage.
func (db *DB) noteDamage(err error) error {
	if err != nil && errors.Is(err, ErrDamaged) {
		db.damaged.Store(true)
	}
	return err
}

// get is the value of key in bucket, nil when either is missing (a file
// opened read-only may lack buckets).
func get(tx *bolt.Tx, bucket []byte, key string) []byte {
	if b := tx.Bucket(bucket); b != nil {
		return b.Get([]byte(key))
	}
	return nil
}

// putAll puts values[i] under keys[i] in b.
func putAll(b *bolt.Bucket, keys, values [][]byte) error {
	for i, k := range keys {
		if err := b.Put(k, values[i]); err != nil {
			return err
		}
	}
	return nil
}

// deleteAll deletes keys from b; keys found under a cursor must be
// collected first: deleting under it skips entries in bbolt.
func deleteAll(b *bolt.Bucket, keys [][]byte) error {
	for _, k := range keys {
		if err := b.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// update commits fn durably, grouped with concurrent writers' functions into
// one transaction (see writer). fn may run more than once and must be
// idempotent.
func (db *DB) update(fn func(*bolt.Tx) error) error {
	if db.readOnly {
		return fmt.Errorf("database %s was opened read-only", db.path)
	}
	return db.noteDamage(db.w.do(fn))
}
