package cache

import (
	"sync/atomic"

	bolt "go.etcd.io/bbolt"
)

// bbolt reads the database through a shared read-only mapping of the file,
// so every page a run writes (bbolt rereads the pages it rebalances) or a
// report reads stays in this process's resident set: a report of a 400 MB
// run held 420 MB of the file that way, although the kernel could drop
// those clean pages at any time. So the mapping's share of the resident set
// is checked every few commits or megabytes read, and once it passes
// trimAbove the mapping is advised away (madvise MADV_DONTNEED on Linux:
// the pages stay in the page cache and fault back in from there when read
// again). A run or a report then holds no more of the file than that,
// whatever the size of the database.
const (
	trimAbove = 24 << 20
	// checkEvery bounds how often the resident set is read: every this
	// many notes (commits, pages of results) or bytes read.
	checkEvery      = 16
	checkEveryBytes = 4 << 20
	// pageOverhead is what a lookup touches besides its value: the pages
	// on the way down the tree, about one page.
	pageOverhead = 4096
)

// resident counts what was touched through the mapping since the last
// check.
type resident struct {
	notes   atomic.Int64
	touched atomic.Int64
	// base is the process's file-backed resident set when the database
	// was opened (the executable's own pages, mostly): only growth past
	// it is the mapping's.
	base int64
	// above and everyBytes are trimAbove and checkEveryBytes (tests
	// lower them).
	above, everyBytes int64
}

func newResident() resident {
	return resident{base: fileResident(), above: trimAbove, everyBytes: checkEveryBytes}
}

// note counts one commit or read of n bytes and trims the mapping of bdb
// when the file's pages in the resident set have grown past trimAbove.
func (r *resident) note(bdb *bolt.DB, n int) {
	if r.notes.Add(1) < checkEvery && r.touched.Add(int64(n)) < r.everyBytes {
		return
	}
	r.notes.Store(0)
	r.touched.Store(0)
	if fileResident()-r.base < r.above {
		return
	}
	trimMapping(bdb)
}

// trimMapping drops bbolt's mapping of the file from the resident set. A
// read transaction holds bbolt's mmap lock: the mapping cannot be moved or
// unmapped while it is advised, so the range is bbolt's.
func trimMapping(bdb *bolt.DB) {
	_ = bdb.View(func(tx *bolt.Tx) error {
		dontNeed(bdb.Info().Data, tx.Size())
		return nil
	})
}
