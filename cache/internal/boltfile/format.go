// Package boltfile reads bbolt's on-disk format (bbolt v1.5.0, file format
// version 2) from a byte slice with ordinary bounds checks, so that a
// damaged file can be examined without letting bbolt crash on it: it walks
// and scans a file's pages, records the state of a file found sound
// (verified.go), and keeps bbolt's mapping out of the resident set
// (resident.go).
//
// The layout, all integers in the machine's byte order:
//
//	page header (16 bytes): id u64, flags u16, count u16, overflow u32
//	meta (after the header): magic u32, version u32, page size u32, flags u32,
//	    root bucket {root page u64, sequence u64}, freelist page u64,
//	    high-water mark (page count) u64, txid u64, checksum u64 (FNV-1a of
//	    the 56 bytes before it)
//	branch element (16 bytes): pos u32, key size u32, child page u64
//	leaf element (16 bytes): flags u32, pos u32, key size u32, value size u32
//	    (pos is counted from the element itself; the value follows the key)
//	bucket value: root page u64, sequence u64, then, when root is 0, the
//	    bucket's only page inline
package boltfile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
)

// The sizes and flags of the layout above; NoFreelist is the freelist page
// of a meta page when the freelist is not written to the file.
const (
	PageHeaderSize   = 16
	elementSize      = 16
	bucketHeaderSize = 16
	metaSize         = 64

	boltMagic   = 0xED0CDAED
	boltVersion = 2

	FlagBranch   = 0x01
	FlagLeaf     = 0x02
	flagMeta     = 0x04
	FlagFreelist = 0x10

	leafBucketFlag = 0x01

	NoFreelist = ^uint64(0)

	// MaxProblems bounds the problems a walk keeps (it counts them all).
	MaxProblems = 200
)

var ne = binary.NativeEndian

// Meta is a meta page: the page size, the roots of the tree and of the
// freelist, the high-water mark (page count) and the transaction.
type Meta struct {
	PageSize                   uint32
	Root, Freelist, Pgid, Txid uint64
	Err                        error // why the meta page is not valid
}

func parseMeta(b []byte) Meta {
	if len(b) < PageHeaderSize+metaSize {
		return Meta{Err: fmt.Errorf("short meta page")}
	}
	m := b[PageHeaderSize : PageHeaderSize+metaSize]
	magic, version := ne.Uint32(m[0:]), ne.Uint32(m[4:])
	mi := Meta{
		PageSize: ne.Uint32(m[8:]),
		Root:     ne.Uint64(m[16:]),
		Freelist: ne.Uint64(m[32:]),
		Pgid:     ne.Uint64(m[40:]),
		Txid:     ne.Uint64(m[48:]),
	}
	h := fnv.New64a()
	h.Write(m[:56])
	switch {
	case magic != boltMagic:
		mi.Err = fmt.Errorf("no bbolt magic number")
	case version != boltVersion:
		mi.Err = fmt.Errorf("bbolt file format version %d, want %d", version, boltVersion)
	case ne.Uint64(m[56:]) != h.Sum64():
		mi.Err = fmt.Errorf("checksum mismatch")
	case mi.PageSize < 512 || mi.PageSize > 1<<24:
		mi.Err = fmt.Errorf("implausible page size %d", mi.PageSize)
	}
	return mi
}

// File is a database file's bytes with its meta pages parsed.
type File struct {
	Data     []byte
	PageSize int
	Metas    [2]Meta
	Cur      int // index of the meta bbolt would use, -1 when neither is valid
}

// Read finds the page size and the meta pages the way bbolt does: the
// first meta page gives the page size; when it is damaged, the second one
// is looked for at every power of two from 1 KiB.
func Read(data []byte) *File {
	bf := &File{Data: data, Cur: -1}
	m0 := parseMeta(data)
	if m0.Err == nil {
		bf.PageSize = int(m0.PageSize)
	} else {
		for i := 0; i <= 14; i++ {
			pos := 1024 << i
			if pos >= len(data)-1024 {
				break
			}
			if m := parseMeta(data[pos:]); m.Err == nil && int(m.PageSize) == pos {
				bf.PageSize = pos
				break
			}
		}
	}
	bf.Metas[0] = m0
	if bf.PageSize == 0 {
		bf.Metas[1] = Meta{Err: fmt.Errorf("not found")}
		return bf
	}
	if len(data) >= 2*bf.PageSize {
		bf.Metas[1] = parseMeta(data[bf.PageSize:])
	} else {
		bf.Metas[1] = Meta{Err: fmt.Errorf("the file ends before it")}
	}
	a, b := 0, 1
	if bf.Metas[1].Txid > bf.Metas[0].Txid {
		a, b = 1, 0
	}
	switch {
	case bf.Metas[a].Err == nil:
		bf.Cur = a
	case bf.Metas[b].Err == nil:
		bf.Cur = b
	}
	return bf
}

// Meta is the meta page in use.
func (bf *File) Meta() Meta { return bf.Metas[bf.Cur] }

// Problem is one thing found wrong.
type Problem struct {
	bucket string // where in the tree ("" for the file as a whole)
	page   uint64 // 0 when not about a page
	msg    string
}

func (p Problem) String() string {
	switch {
	case p.page != 0 && p.bucket != "":
		return fmt.Sprintf("page %d (bucket %q): %s", p.page, p.bucket, p.msg)
	case p.page != 0:
		return fmt.Sprintf("page %d: %s", p.page, p.msg)
	case p.bucket != "":
		return fmt.Sprintf("bucket %q: %s", p.bucket, p.msg)
	}
	return p.msg
}

// Problems are what a walk found wrong: the first MaxProblems of N.
type Problems struct {
	List []Problem
	N    int
}

// Addf records a problem of bucket ("" for the file as a whole) and page
// (0 when not about one).
func (ps *Problems) Addf(bucket string, page uint64, format string, args ...any) {
	ps.N++
	if len(ps.List) < MaxProblems {
		ps.List = append(ps.List, Problem{bucket: bucket, page: page, msg: fmt.Sprintf(format, args...)})
	}
}

// Texts are the problems kept, as text.
func (ps *Problems) Texts() []string {
	out := make([]string, 0, len(ps.List))
	for _, p := range ps.List {
		out = append(out, p.String())
	}
	return out
}

// Walker visits a bbolt tree from a meta page, checking every page on the
// way as bbolt's own consistency check does (bounds, page type, single
// reference, key order) without ever trusting a number it has not checked.
// Subtrees under a bad page are skipped and the walk goes on.
type Walker struct {
	bf       *File
	hwm      uint64 // pages below it belong to the database
	seen     []uint64
	Problems Problems
	// BadPages counts pages the tree refers to that could not be read
	// (their subtrees are lost to the walk).
	BadPages int
	// Visit, when set, receives every key/value pair (not sub-buckets) with
	// the path of its bucket (nested ones joined with '/'); the slices alias
	// the file's bytes.
	Visit func(bucket string, key, value []byte)
	// Enter, when set, hears of every bucket the walk enters, empty or not.
	Enter func(bucket string)
	// OnPage, when set, hears of every page of the tree that was read.
	OnPage func(bucket string, id uint64)
	// Trim, when set, is called every trimPages pages read, for the
	// pre-open check to drop the pages it walked from the resident set.
	Trim  func()
	pages int
}

const trimPages = 4096

// NewWalker prepares a walk of the tree of the meta page in use (bf.Cur
// must not be -1).
func NewWalker(bf *File) *Walker {
	m := bf.Meta()
	// Pages past the end of the file are never marked: size the set by
	// the smaller of the two.
	n := min(m.Pgid, uint64(len(bf.Data)/bf.PageSize)+1)
	return &Walker{bf: bf, hwm: m.Pgid, seen: make([]uint64, (n+63)/64)}
}

func (w *Walker) isSeen(id uint64) bool {
	return id/64 < uint64(len(w.seen)) && w.seen[id/64]&(1<<(id%64)) != 0
}

func (w *Walker) markSeen(id uint64) { w.seen[id/64] |= 1 << (id % 64) }

// CheckMeta reports what is wrong with the meta page in use and with the
// file's length; it returns false when the tree cannot be walked at all.
func (w *Walker) CheckMeta() bool {
	m := w.bf.Meta()
	size := uint64(len(w.bf.Data))
	ps := uint64(w.bf.PageSize)
	ok := true
	if m.Pgid < 3 {
		w.Problems.Addf("", 0, "the meta page claims %d pages; a database has at least 3", m.Pgid)
		ok = false
	}
	if m.Pgid > 1<<40 {
		w.Problems.Addf("", 0, "the meta page claims %d pages, far beyond any file", m.Pgid)
		return false
	}
	if m.Pgid*ps > size {
		w.Problems.Addf("", 0, "the file is truncated: it is %d bytes long but the database extends to %d bytes (%d pages of %d bytes); pages %d to %d are missing",
			size, m.Pgid*ps, m.Pgid, ps, size/ps, m.Pgid-1)
	}
	if m.Root < 2 || m.Root >= m.Pgid {
		w.Problems.Addf("", 0, "the root page %d is outside the database (pages 2 to %d)", m.Root, m.Pgid-1)
		ok = false
	}
	if m.Freelist != NoFreelist && (m.Freelist < 2 || m.Freelist >= m.Pgid) {
		w.Problems.Addf("", 0, "the freelist page %d is outside the database (pages 2 to %d)", m.Freelist, m.Pgid-1)
	}
	return ok
}

// page returns a page's header fields and its bytes (header included,
// overflow pages included), after checking that it lies inside the
// database and the file and identifies itself as id.
func (w *Walker) page(bucket string, id uint64) (flags uint16, count int, buf []byte, ok bool) {
	bad := func(page uint64, format string, args ...any) (uint16, int, []byte, bool) {
		w.Problems.Addf(bucket, page, format, args...)
		w.BadPages++
		return 0, 0, nil, false
	}
	ps := uint64(w.bf.PageSize)
	if id < 2 || id >= w.hwm {
		return bad(0, "refers to page %d, outside the database (pages 2 to %d)", id, w.hwm-1)
	}
	off := id * ps
	size := uint64(len(w.bf.Data))
	if off+PageHeaderSize > size {
		return bad(id, "lies past the end of the file (the file is truncated)")
	}
	h := w.bf.Data[off:]
	if got := ne.Uint64(h[0:]); got != id {
		return bad(id, "page identifies itself as %d (overwritten or zeroed)", got)
	}
	flags = ne.Uint16(h[8:])
	count = int(ne.Uint16(h[10:]))
	overflow := uint64(ne.Uint32(h[12:]))
	if id+overflow >= w.hwm {
		return bad(id, "its %d overflow pages run past the end of the database", overflow)
	}
	end := off + (overflow+1)*ps
	if end > size {
		return bad(id, "lies past the end of the file (the file is truncated)")
	}
	for i := id; i <= id+overflow; i++ {
		if w.isSeen(i) {
			return bad(id, "page %d is referenced more than once", i)
		}
	}
	for i := id; i <= id+overflow; i++ {
		w.markSeen(i)
	}
	if w.OnPage != nil {
		w.OnPage(bucket, id)
	}
	if w.pages++; w.Trim != nil && w.pages%trimPages == 0 {
		w.Trim()
	}
	return flags, count, w.bf.Data[off:end], true
}

// CheckAll checks the meta page in use, its tree and its freelist.
func (w *Walker) CheckAll() {
	if w.CheckMeta() {
		w.Walk()
		w.checkFreelist()
	}
}

// Walk checks the whole tree of the meta page in use.
func (w *Walker) Walk() { w.walkPage("", w.bf.Meta().Root, nil, nil, 0) }

// walkPage checks page id and its subtree, whose keys must lie in
// [minKey, maxKey) (nil: unbounded), and returns the greatest key in it.
func (w *Walker) walkPage(bucket string, id uint64, minKey, maxKey []byte, depth int) []byte {
	if depth > 64 {
		w.Problems.Addf(bucket, id, "the tree is more than 64 levels deep (a loop of pages?)")
		w.BadPages++
		return nil
	}
	flags, count, buf, ok := w.page(bucket, id)
	if !ok {
		return nil
	}
	if uint64(PageHeaderSize+count*elementSize) > uint64(len(buf)) {
		w.Problems.Addf(bucket, id, "claims %d elements, more than the page holds", count)
		w.BadPages++
		return nil
	}
	if flags != FlagBranch && flags != FlagLeaf {
		w.Problems.Addf(bucket, id, "is a %s page where a branch or leaf page belongs", pageType(flags))
		w.BadPages++
		return nil
	}
	es, err := elems(buf, count, flags == FlagBranch)
	if err != nil {
		w.Problems.Addf(bucket, id, "%v", err)
		w.BadPages++
		return nil
	}
	if flags == FlagLeaf {
		w.visitElems(bucket, id, "leaf", es, minKey, maxKey, depth)
		if len(es) > 0 {
			return es[len(es)-1].key
		}
		return nil
	}
	if count == 0 {
		w.Problems.Addf(bucket, id, "branch page with no elements")
		return nil
	}
	running := minKey
	var last []byte
	for i, k := range es {
		w.checkKey(bucket, id, "branch", i, k.key, running, maxKey)
		next := maxKey
		if i+1 < len(es) {
			next = es[i+1].key
		}
		if m := w.walkPage(bucket, k.child, k.key, next, depth+1); m != nil {
			running, last = m, m
		} else {
			running = k.key
		}
	}
	return last
}

var pageTypes = map[uint16]string{FlagBranch: "branch", FlagLeaf: "leaf", flagMeta: "meta", FlagFreelist: "freelist"}

func pageType(flags uint16) string {
	if t, ok := pageTypes[flags]; ok {
		return t
	}
	return fmt.Sprintf("unknown (flags %#x)", flags)
}

// elem is one element of a page: of a branch page its key and child
// page, of a leaf page its flags, key and value.
type elem struct {
	flags      uint32
	key, value []byte
	child      uint64
}

// elems decodes a page's elements, failing on the first that lies outside
// buf.
func elems(buf []byte, count int, branch bool) ([]elem, error) {
	if uint64(PageHeaderSize+count*elementSize) > uint64(len(buf)) {
		return nil, fmt.Errorf("claims %d elements, more than the page holds", count)
	}
	out := make([]elem, 0, count)
	for i := 0; i < count; i++ {
		eo := PageHeaderSize + i*elementSize
		e := buf[eo:]
		if branch {
			pos, ksize := uint64(ne.Uint32(e[0:])), uint64(ne.Uint32(e[4:]))
			if start := uint64(eo) + pos; start+ksize <= uint64(len(buf)) {
				out = append(out, elem{key: buf[start : start+ksize], child: ne.Uint64(e[8:])})
				continue
			}
			return out, fmt.Errorf("element %d's key lies outside the page", i)
		}
		pos, ksize, vsize := uint64(ne.Uint32(e[4:])), uint64(ne.Uint32(e[8:])), uint64(ne.Uint32(e[12:]))
		start := uint64(eo) + pos
		if start+ksize+vsize > uint64(len(buf)) {
			return out, fmt.Errorf("element %d lies outside the page", i)
		}
		out = append(out, elem{flags: ne.Uint32(e[0:]), key: buf[start : start+ksize], value: buf[start+ksize : start+ksize+vsize]})
	}
	return out, nil
}

// visitElems checks the key order of a leaf page's elements (kind "leaf",
// or "inline" for a bucket's inline page, which may not hold buckets) and
// visits them.
func (w *Walker) visitElems(bucket string, id uint64, kind string, elems []elem, minKey, maxKey []byte, depth int) {
	running := minKey
	for i, e := range elems {
		w.checkKey(bucket, id, kind, i, e.key, running, maxKey)
		running = e.key
		switch {
		case e.flags&leafBucketFlag != 0 && kind == "inline":
			w.Problems.Addf(bucket, id, "the bucket's inline page holds a bucket (%q)", e.key)
		case e.flags&leafBucketFlag != 0:
			w.walkChildBucket(bucket, id, e.key, e.value, depth)
		case w.Visit != nil:
			w.Visit(bucket, e.key, e.value)
		}
	}
}

func (w *Walker) walkChildBucket(parent string, id uint64, name, value []byte, depth int) {
	bucket := string(name)
	if parent != "" {
		bucket = parent + "/" + bucket
	}
	if w.Enter != nil {
		w.Enter(bucket)
	}
	if len(value) < bucketHeaderSize {
		w.Problems.Addf(bucket, id, "the bucket's header is %d bytes, want %d", len(value), bucketHeaderSize)
		return
	}
	root := ne.Uint64(value[0:])
	if root != 0 {
		w.walkPage(bucket, root, nil, nil, depth+1)
		return
	}
	elems, err := inlineElems(value[bucketHeaderSize:])
	if err != nil {
		w.Problems.Addf(bucket, id, "%v", err)
		return
	}
	w.visitElems(bucket, id, "inline", elems, nil, nil, depth)
}

// inlineElems decodes a bucket's inline page; on error, the elements
// before a bad one.
func inlineElems(inline []byte) ([]elem, error) {
	if len(inline) < PageHeaderSize {
		return nil, fmt.Errorf("the bucket's inline page is %d bytes, too short", len(inline))
	}
	if flags := ne.Uint16(inline[8:]); flags != FlagLeaf {
		return nil, fmt.Errorf("the bucket's inline page is a %s page, want leaf", pageType(flags))
	}
	leaves, err := elems(inline, int(ne.Uint16(inline[10:])), false)
	if err != nil {
		return leaves, fmt.Errorf("the bucket's inline page: %v", err)
	}
	return leaves, nil
}

// checkKey applies bbolt's key order rules: keys rise strictly within a
// page, and a subtree's keys lie between its parent's keys.
func (w *Walker) checkKey(bucket string, id uint64, kind string, i int, key, prev, maxKey []byte) {
	if len(key) == 0 {
		w.Problems.Addf(bucket, id, "%s element %d has an empty key", kind, i)
		return
	}
	if prev != nil {
		c := bytes.Compare(prev, key)
		if (i == 0 && c > 0) || (i > 0 && c >= 0) {
			w.Problems.Addf(bucket, id, "%s element %d is out of key order", kind, i)
			return
		}
	}
	if maxKey != nil && bytes.Compare(key, maxKey) >= 0 {
		w.Problems.Addf(bucket, id, "%s element %d is beyond its parent's key range", kind, i)
	}
}

// checkFreelist checks a synced freelist page: bbolt allocates from it, so
// a free page the tree uses, or one outside the database, would be
// overwritten. Call after Walk.
func (w *Walker) checkFreelist() {
	fl := w.bf.Meta().Freelist
	if fl == NoFreelist || fl < 2 || fl >= w.hwm {
		return
	}
	flags, count, buf, ok := w.page("freelist", fl)
	if !ok {
		return
	}
	if flags != FlagFreelist {
		w.Problems.Addf("", fl, "the freelist page is a %s page", pageType(flags))
		return
	}
	idx := 0
	n := uint64(count)
	if count == 0xFFFF {
		if len(buf) < PageHeaderSize+8 {
			w.Problems.Addf("", fl, "the freelist page is cut short")
			return
		}
		n, idx = ne.Uint64(buf[PageHeaderSize:]), 1
	}
	if (uint64(idx)+n)*8+PageHeaderSize > uint64(len(buf)) {
		w.Problems.Addf("", fl, "the freelist claims %d pages, more than its page holds", n)
		return
	}
	free := map[uint64]bool{}
	for i := uint64(0); i < n; i++ {
		p := ne.Uint64(buf[PageHeaderSize+(uint64(idx)+i)*8:])
		switch {
		case p < 2 || p >= w.hwm:
			w.Problems.Addf("", fl, "the freelist lists page %d, outside the database", p)
		case free[p]:
			w.Problems.Addf("", fl, "the freelist lists page %d twice", p)
		case w.isSeen(p):
			w.Problems.Addf("", fl, "the freelist lists page %d, which is in use", p)
		}
		free[p] = true
	}
}

// Mapped is a read-only view of a whole file.
type Mapped struct {
	Data  []byte
	Unmap func()
}

// Map maps f's first size bytes read-only (see mmap_*.go).
func Map(f *os.File, size int64) (*Mapped, error) {
	if size <= 0 {
		return &Mapped{Unmap: func() {}}, nil
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("file of %d bytes is too large to map", size)
	}
	return mapWhole(f, int(size))
}
