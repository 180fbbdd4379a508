package boltfile

import (
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// Every page bbolt reads through its shared mapping stays in the resident
// set, although the kernel could drop those clean pages at any time. So
// the mapping's share is checked every few commits or megabytes read, and
// past trimAbove it is advised away (MADV_DONTNEED: the pages stay in the
// page cache), whatever the size of the database.
const (
	trimAbove = 24 << 20
	// checkEvery bounds how often the resident set is read: every this
	// many notes (commits, pages of results) or bytes read.
	checkEvery      = 16
	checkEveryBytes = 4 << 20
	// PageOverhead is what a lookup touches besides its value: the pages
	// on the way down the tree, about one page.
	PageOverhead = 4096
)

// Resident counts what was touched through the mapping since the last
// check.
type Resident struct {
	notes   atomic.Int64
	touched atomic.Int64
	// Base is the process's file-backed resident set when the database
	// was opened (the executable's own pages, mostly): only growth past
	// it is the mapping's.
	Base int64
	// Above and EveryBytes are trimAbove and checkEveryBytes (tests
	// lower them).
	Above, EveryBytes int64
}

// NewResident starts counting for a database opened now.
func NewResident() Resident {
	return Resident{Base: FileResident(), Above: trimAbove, EveryBytes: checkEveryBytes}
}

// Note counts one commit or read of n bytes and trims the mapping of bdb
// when the file's pages in the resident set have grown past trimAbove.
func (r *Resident) Note(bdb *bolt.DB, n int) {
	if r.notes.Add(1) < checkEvery && r.touched.Add(int64(n)) < r.EveryBytes {
		return
	}
	r.notes.Store(0)
	r.touched.Store(0)
	if FileResident()-r.Base < r.Above {
		return
	}
	TrimMapping(bdb)
}

// TrimMapping drops bbolt's mapping of the file from the resident set. A
// read transaction holds bbolt's mmap lock: the mapping cannot be moved or
// unmapped while it is advised, so the range is bbolt's.
func TrimMapping(bdb *bolt.DB) {
	_ = bdb.View(func(tx *bolt.Tx) error {
		dontNeed(bdb.Info().Data, tx.Size())
		return nil
	})
}
