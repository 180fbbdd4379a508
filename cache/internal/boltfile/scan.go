package boltfile

import (
	"os"
	"time"
)

// LockRetry is how long to wait before trying a lock again.
const LockRetry = 20 * time.Millisecond

// LooksLikeBolt says whether some of the first pages of data identify
// themselves as bbolt pages of a common page size.
func LooksLikeBolt(data []byte) bool {
	for _, ps := range candidatePageSizes() {
		hits := 0
		for id := 2; id < 66 && (id+1)*ps <= len(data); id++ {
			off := id * ps
			if ne.Uint64(data[off:]) == uint64(id) {
				switch ne.Uint16(data[off+8:]) {
				case FlagBranch, FlagLeaf, FlagFreelist:
					hits++
				}
			}
		}
		if hits >= 2 {
			return true
		}
	}
	return false
}

func candidatePageSizes() []int {
	sizes := []int{os.Getpagesize()}
	for _, s := range []int{4096, 8192, 16384, 65536, 1024, 2048, 32768} {
		if s != sizes[0] {
			sizes = append(sizes, s)
		}
	}
	return sizes
}

// GuessPageSize picks the page size at which most of the file's pages
// identify themselves.
func GuessPageSize(data []byte) int {
	best, bestHits := os.Getpagesize(), 0
	for _, ps := range candidatePageSizes() {
		hits := 0
		for off := 2 * ps; off+PageHeaderSize <= len(data); off += ps {
			if ne.Uint64(data[off:]) == uint64(off/ps) {
				hits++
			}
		}
		if hits > bestHits {
			best, bestHits = ps, hits
		}
	}
	return best
}

// Scan reads every page of pageSize bytes that identifies itself as a leaf
// page, whether a tree still reaches it or not, and gives visit its
// key/value pairs: those of the page, with bucket "" (the page does not
// say whose it is), and those of the small buckets that live inline in
// it, with the name of their bucket. The slices alias data.
func Scan(data []byte, pageSize int, visit func(bucket string, key, value []byte)) {
	ps := pageSize
	for off := 2 * ps; off+PageHeaderSize <= len(data); off += ps {
		id := uint64(off / ps)
		if ne.Uint64(data[off:]) != id || ne.Uint16(data[off+8:]) != FlagLeaf {
			continue
		}
		count := int(ne.Uint16(data[off+10:]))
		end := off + (int(ne.Uint32(data[off+12:]))+1)*ps
		if end > len(data) || end < off {
			end = len(data)
		}
		leaves, _ := elems(data[off:end], count, false) // the elements before a bad one
		for _, e := range leaves {
			if e.flags&leafBucketFlag == 0 {
				visit("", e.key, e.value)
				continue
			}
			if len(e.value) < bucketHeaderSize || ne.Uint64(e.value) != 0 {
				continue
			}
			in, _ := inlineElems(e.value[bucketHeaderSize:])
			for _, ie := range in {
				if ie.flags&leafBucketFlag == 0 {
					visit(string(e.key), ie.key, ie.value)
				}
			}
		}
	}
}
