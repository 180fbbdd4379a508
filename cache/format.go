package cache

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"os"
)

// This file reads bbolt's on-disk format (bbolt v1.5.0, file format
// version 2) from a byte slice with ordinary bounds checks, so that a
// damaged file can be examined without letting bbolt touch it: bbolt reads
// pages through unchecked pointers into its mmap, and a bad page number
// there is a crash (a fault, or a panic in a goroutine bbolt starts itself),
// not an error.
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
const (
	pageHeaderSize   = 16
	elementSize      = 16
	bucketHeaderSize = 16
	metaSize         = 64

	boltMagic   = 0xED0CDAED
	boltVersion = 2

	flagBranch   = 0x01
	flagLeaf     = 0x02
	flagMeta     = 0x04
	flagFreelist = 0x10

	leafBucketFlag = 0x01

	noFreelist = ^uint64(0)

	// maxProblems bounds the problems a walk keeps (it counts them all).
	maxProblems = 200
)

var ne = binary.NativeEndian

type metaInfo struct {
	pageSize               uint32
	root, freelist, pgid   uint64
	txid                   uint64
	err                    error // why the meta page is not valid
	magic, version, stored uint32
}

func parseMeta(b []byte) metaInfo {
	if len(b) < pageHeaderSize+metaSize {
		return metaInfo{err: fmt.Errorf("short meta page")}
	}
	m := b[pageHeaderSize : pageHeaderSize+metaSize]
	mi := metaInfo{
		magic:    ne.Uint32(m[0:]),
		version:  ne.Uint32(m[4:]),
		pageSize: ne.Uint32(m[8:]),
		root:     ne.Uint64(m[16:]),
		freelist: ne.Uint64(m[32:]),
		pgid:     ne.Uint64(m[40:]),
		txid:     ne.Uint64(m[48:]),
	}
	h := fnv.New64a()
	h.Write(m[:56])
	switch {
	case mi.magic != boltMagic:
		mi.err = fmt.Errorf("no bbolt magic number")
	case mi.version != boltVersion:
		mi.err = fmt.Errorf("bbolt file format version %d, want %d", mi.version, boltVersion)
	case ne.Uint64(m[56:]) != h.Sum64():
		mi.err = fmt.Errorf("checksum mismatch")
	case mi.pageSize < 512 || mi.pageSize > 1<<24:
		mi.err = fmt.Errorf("implausible page size %d", mi.pageSize)
	}
	return mi
}

// boltFile is a database file's bytes with its meta pages parsed.
type boltFile struct {
	data     []byte
	pageSize int
	metas    [2]metaInfo
	cur      int // index of the meta bbolt would use, -1 when neither is valid
}

// readMetas finds the page size and the meta pages the way bbolt does: the
// first meta page gives the page size; when it is damaged, the second one
// is looked for at every power of two from 1 KiB.
func readMetas(data []byte) *boltFile {
	bf := &boltFile{data: data, cur: -1}
	m0 := parseMeta(data)
	switch {
	case m0.err == nil:
		bf.pageSize = int(m0.pageSize)
	default:
		for i := 0; i <= 14; i++ {
			pos := 1024 << i
			if pos >= len(data)-1024 {
				break
			}
			if m := parseMeta(data[pos:]); m.err == nil && int(m.pageSize) == pos {
				bf.pageSize = pos
				break
			}
		}
	}
	if bf.pageSize == 0 {
		bf.metas[0], bf.metas[1] = m0, metaInfo{err: fmt.Errorf("not found")}
		return bf
	}
	bf.metas[0] = parseMeta(data)
	if len(data) >= 2*bf.pageSize {
		bf.metas[1] = parseMeta(data[bf.pageSize:])
	} else {
		bf.metas[1] = metaInfo{err: fmt.Errorf("the file ends before it")}
	}
	a, b := 0, 1
	if bf.metas[1].txid > bf.metas[0].txid {
		a, b = 1, 0
	}
	switch {
	case bf.metas[a].err == nil:
		bf.cur = a
	case bf.metas[b].err == nil:
		bf.cur = b
	}
	return bf
}

func (bf *boltFile) meta() metaInfo { return bf.metas[bf.cur] }

// problem is one thing found wrong.
type problem struct {
	bucket string // where in the tree ("" for the file as a whole)
	page   uint64 // 0 when not about a page
	msg    string
}

func (p problem) String() string {
	var b bytes.Buffer
	if p.page != 0 {
		fmt.Fprintf(&b, "page %d", p.page)
		if p.bucket != "" {
			fmt.Fprintf(&b, " (bucket %q)", p.bucket)
		}
		b.WriteString(": ")
	} else if p.bucket != "" {
		fmt.Fprintf(&b, "bucket %q: ", p.bucket)
	}
	b.WriteString(p.msg)
	return b.String()
}

type problems struct {
	list []problem
	n    int
}

func (ps *problems) add(p problem) {
	ps.n++
	if len(ps.list) < maxProblems {
		ps.list = append(ps.list, p)
	}
}

func (ps *problems) addf(bucket string, page uint64, format string, args ...any) {
	ps.add(problem{bucket: bucket, page: page, msg: fmt.Sprintf(format, args...)})
}

// texts are the problems kept, as text.
func (ps *problems) texts() []string {
	out := make([]string, 0, len(ps.list))
	for _, p := range ps.list {
		out = append(out, p.String())
	}
	return out
}

// walker visits a bbolt tree from a meta page, checking every page on the
// way as bbolt's own consistency check does (bounds, page type, single
// reference, key order) without ever trusting a number it has not checked.
// Subtrees under a bad page are skipped and the walk goes on.
type walker struct {
	bf   *boltFile
	hwm  uint64 // pages below it belong to the database
	seen []uint64
	ps   problems
	// badPages counts pages the tree refers to that could not be read
	// (their subtrees are lost to the walk).
	badPages int
	// visit, when set, receives every key/value pair (not sub-buckets) with
	// the path of its bucket ("runs", "results", ...; nested buckets are
	// joined with '/'). The slices alias the file's bytes.
	visit func(bucket string, key, value []byte)
	// enter, when set, hears of every bucket the walk enters, empty or not.
	enter func(bucket string)
	// onPage, when set, hears of every page of the tree that was read.
	onPage func(bucket string, id uint64)
	// trim, when set, is called every trimPages pages read: the pre-open
	// check drops the pages it has walked from the resident set, so
	// opening a database of a gigabyte does not hold a gigabyte.
	trim  func()
	pages int
}

const trimPages = 4096

func newWalker(bf *boltFile) *walker {
	m := bf.meta()
	// Pages past the end of the file are never marked: size the set by
	// the smaller of the two.
	n := min(m.pgid, uint64(len(bf.data)/bf.pageSize)+1)
	return &walker{bf: bf, hwm: m.pgid, seen: make([]uint64, (n+63)/64)}
}

func (w *walker) isSeen(id uint64) bool {
	return id/64 < uint64(len(w.seen)) && w.seen[id/64]&(1<<(id%64)) != 0
}

func (w *walker) markSeen(id uint64) { w.seen[id/64] |= 1 << (id % 64) }

// checkMeta reports what is wrong with the meta page in use and with the
// file's length; it returns false when the tree cannot be walked at all.
func (w *walker) checkMeta() bool {
	m := w.bf.meta()
	size := uint64(len(w.bf.data))
	ps := uint64(w.bf.pageSize)
	ok := true
	if m.pgid < 3 {
		w.ps.addf("", 0, "the meta page claims %d pages; a database has at least 3", m.pgid)
		ok = false
	}
	if m.pgid > 1<<40 {
		w.ps.addf("", 0, "the meta page claims %d pages, far beyond any file", m.pgid)
		return false
	}
	if m.pgid*ps > size {
		w.ps.addf("", 0, "the file is truncated: it is %d bytes long but the database extends to %d bytes (%d pages of %d bytes); pages %d to %d are missing",
			size, m.pgid*ps, m.pgid, ps, size/ps, m.pgid-1)
	}
	if m.root < 2 || m.root >= m.pgid {
		w.ps.addf("", 0, "the root page %d is outside the database (pages 2 to %d)", m.root, m.pgid-1)
		ok = false
	}
	if m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.pgid) {
		w.ps.addf("", 0, "the freelist page %d is outside the database (pages 2 to %d)", m.freelist, m.pgid-1)
	}
	return ok
}

// page returns a page's header fields and its bytes (header included,
// overflow pages included), after checking that it lies inside the
// database and the file and identifies itself as id.
func (w *walker) page(bucket string, id uint64) (flags uint16, count int, buf []byte, ok bool) {
	ps := uint64(w.bf.pageSize)
	if id < 2 || id >= w.hwm {
		w.ps.addf(bucket, 0, "refers to page %d, outside the database (pages 2 to %d)", id, w.hwm-1)
		w.badPages++
		return 0, 0, nil, false
	}
	off := id * ps
	size := uint64(len(w.bf.data))
	if off+pageHeaderSize > size {
		w.ps.addf(bucket, id, "lies past the end of the file (the file is truncated)")
		w.badPages++
		return 0, 0, nil, false
	}
	h := w.bf.data[off:]
	if got := ne.Uint64(h[0:]); got != id {
		w.ps.addf(bucket, id, "page identifies itself as %d (overwritten or zeroed)", got)
		w.badPages++
		return 0, 0, nil, false
	}
	flags = ne.Uint16(h[8:])
	count = int(ne.Uint16(h[10:]))
	overflow := uint64(ne.Uint32(h[12:]))
	if id+overflow >= w.hwm {
		w.ps.addf(bucket, id, "its %d overflow pages run past the end of the database", overflow)
		w.badPages++
		return 0, 0, nil, false
	}
	end := off + (overflow+1)*ps
	if end > size {
		w.ps.addf(bucket, id, "lies past the end of the file (the file is truncated)")
		w.badPages++
		return 0, 0, nil, false
	}
	for i := id; i <= id+overflow; i++ {
		if w.isSeen(i) {
			w.ps.addf(bucket, id, "page %d is referenced more than once", i)
			w.badPages++
			return 0, 0, nil, false
		}
	}
	for i := id; i <= id+overflow; i++ {
		w.markSeen(i)
	}
	if w.onPage != nil {
		w.onPage(bucket, id)
	}
	if w.pages++; w.trim != nil && w.pages%trimPages == 0 {
		w.trim()
	}
	return flags, count, w.bf.data[off:end], true
}

// checkAll checks the meta page in use, its tree and its freelist.
func (w *walker) checkAll() {
	if w.checkMeta() {
		w.walk()
		w.checkFreelist()
	}
}

// walk checks the whole tree of the meta page in use.
func (w *walker) walk() {
	w.walkBucketPage("", w.bf.meta().root)
}

// walkBucketPage walks the tree of a bucket whose root is a page.
func (w *walker) walkBucketPage(bucket string, root uint64) {
	w.walkPage(bucket, root, nil, nil, 0)
}

// walkPage checks page id and its subtree, whose keys must lie in
// [minKey, maxKey) (nil: unbounded), and returns the greatest key in it.
func (w *walker) walkPage(bucket string, id uint64, minKey, maxKey []byte, depth int) []byte {
	if depth > 64 {
		w.ps.addf(bucket, id, "the tree is more than 64 levels deep (a loop of pages?)")
		w.badPages++
		return nil
	}
	flags, count, buf, ok := w.page(bucket, id)
	if !ok {
		return nil
	}
	if uint64(pageHeaderSize+count*elementSize) > uint64(len(buf)) {
		w.ps.addf(bucket, id, "claims %d elements, more than the page holds", count)
		w.badPages++
		return nil
	}
	switch flags {
	case flagBranch:
		if count == 0 {
			w.ps.addf(bucket, id, "branch page with no elements")
			return nil
		}
		type child struct {
			key []byte
			id  uint64
		}
		kids := make([]child, 0, count)
		for i := 0; i < count; i++ {
			eo := pageHeaderSize + i*elementSize
			e := buf[eo:]
			pos, ksize := uint64(ne.Uint32(e[0:])), uint64(ne.Uint32(e[4:]))
			start := uint64(eo) + pos
			if start+ksize > uint64(len(buf)) {
				w.ps.addf(bucket, id, "element %d's key lies outside the page", i)
				w.badPages++
				return nil
			}
			kids = append(kids, child{buf[start : start+ksize], ne.Uint64(e[8:])})
		}
		running := minKey
		var last []byte
		for i, k := range kids {
			w.checkKey(bucket, id, "branch", i, k.key, running, maxKey)
			next := maxKey
			if i+1 < len(kids) {
				next = kids[i+1].key
			}
			if m := w.walkPage(bucket, k.id, k.key, next, depth+1); m != nil {
				running, last = m, m
			} else {
				running = k.key
			}
		}
		return last
	case flagLeaf:
		return w.walkLeaf(bucket, id, buf, count, minKey, maxKey, depth)
	}
	w.ps.addf(bucket, id, "is a %s page where a branch or leaf page belongs", pageType(flags))
	w.badPages++
	return nil
}

func pageType(flags uint16) string {
	switch flags {
	case flagBranch:
		return "branch"
	case flagLeaf:
		return "leaf"
	case flagMeta:
		return "meta"
	case flagFreelist:
		return "freelist"
	}
	return fmt.Sprintf("unknown (flags %#x)", flags)
}

// leafElem is one element of a leaf page.
type leafElem struct {
	flags      uint32
	key, value []byte
}

// leafElems decodes a leaf page's elements, failing on the first that lies
// outside buf.
func leafElems(buf []byte, count int) ([]leafElem, error) {
	if uint64(pageHeaderSize+count*elementSize) > uint64(len(buf)) {
		return nil, fmt.Errorf("claims %d elements, more than the page holds", count)
	}
	out := make([]leafElem, 0, count)
	for i := 0; i < count; i++ {
		eo := pageHeaderSize + i*elementSize
		e := buf[eo:]
		flags := ne.Uint32(e[0:])
		pos, ksize, vsize := uint64(ne.Uint32(e[4:])), uint64(ne.Uint32(e[8:])), uint64(ne.Uint32(e[12:]))
		start := uint64(eo) + pos
		if start+ksize+vsize > uint64(len(buf)) {
			return out, fmt.Errorf("element %d lies outside the page", i)
		}
		out = append(out, leafElem{flags, buf[start : start+ksize], buf[start+ksize : start+ksize+vsize]})
	}
	return out, nil
}

func (w *walker) walkLeaf(bucket string, id uint64, buf []byte, count int, minKey, maxKey []byte, depth int) []byte {
	elems, err := leafElems(buf, count)
	if err != nil {
		w.ps.addf(bucket, id, "%v", err)
		w.badPages++
		return nil
	}
	running := minKey
	for i, e := range elems {
		w.checkKey(bucket, id, "leaf", i, e.key, running, maxKey)
		running = e.key
		if e.flags&leafBucketFlag != 0 {
			w.walkChildBucket(bucket, id, e.key, e.value, depth)
			continue
		}
		if w.visit != nil {
			w.visit(bucket, e.key, e.value)
		}
	}
	if len(elems) > 0 {
		return elems[len(elems)-1].key
	}
	return nil
}

func joinBucket(parent string, name []byte) string {
	if parent == "" {
		return string(name)
	}
	return parent + "/" + string(name)
}

func (w *walker) walkChildBucket(parent string, id uint64, name, value []byte, depth int) {
	bucket := joinBucket(parent, name)
	if w.enter != nil {
		w.enter(bucket)
	}
	if len(value) < bucketHeaderSize {
		w.ps.addf(bucket, id, "the bucket's header is %d bytes, want %d", len(value), bucketHeaderSize)
		return
	}
	root := ne.Uint64(value[0:])
	if root != 0 {
		w.walkPage(bucket, root, nil, nil, depth+1)
		return
	}
	inline := value[bucketHeaderSize:]
	if len(inline) < pageHeaderSize {
		w.ps.addf(bucket, id, "the bucket's inline page is %d bytes, too short", len(inline))
		return
	}
	if flags := ne.Uint16(inline[8:]); flags != flagLeaf {
		w.ps.addf(bucket, id, "the bucket's inline page is a %s page, want leaf", pageType(flags))
		return
	}
	elems, err := leafElems(inline, int(ne.Uint16(inline[10:])))
	if err != nil {
		w.ps.addf(bucket, id, "the bucket's inline page: %v", err)
		return
	}
	var prev []byte
	for i, e := range elems {
		w.checkKey(bucket, id, "inline", i, e.key, prev, nil)
		prev = e.key
		if e.flags&leafBucketFlag != 0 {
			w.ps.addf(bucket, id, "the bucket's inline page holds a bucket (%q)", e.key)
			continue
		}
		if w.visit != nil {
			w.visit(bucket, e.key, e.value)
		}
	}
}

// checkKey applies bbolt's key order rules: keys rise strictly within a
// page, and a subtree's keys lie between its parent's keys.
func (w *walker) checkKey(bucket string, id uint64, kind string, i int, key, prev, maxKey []byte) {
	if len(key) == 0 {
		w.ps.addf(bucket, id, "%s element %d has an empty key", kind, i)
		return
	}
	if prev != nil {
		c := bytes.Compare(prev, key)
		if (i == 0 && c > 0) || (i > 0 && c >= 0) {
			w.ps.addf(bucket, id, "%s element %d is out of key order", kind, i)
			return
		}
	}
	if maxKey != nil && bytes.Compare(key, maxKey) >= 0 {
		w.ps.addf(bucket, id, "%s element %d is beyond its parent's key range", kind, i)
	}
}

// checkFreelist checks a synced freelist page (files written without
// NoFreelistSync, such as a compacted one): bbolt would allocate from it,
// so a free page that the tree uses, or one outside the database, would be
// overwritten. Call after walk.
func (w *walker) checkFreelist() {
	fl := w.bf.meta().freelist
	if fl == noFreelist || fl < 2 || fl >= w.hwm {
		return
	}
	flags, count, buf, ok := w.page("freelist", fl)
	if !ok {
		return
	}
	if flags != flagFreelist {
		w.ps.addf("", fl, "the freelist page is a %s page", pageType(flags))
		return
	}
	idx := 0
	n := uint64(count)
	if count == 0xFFFF {
		if len(buf) < pageHeaderSize+8 {
			w.ps.addf("", fl, "the freelist page is cut short")
			return
		}
		n, idx = ne.Uint64(buf[pageHeaderSize:]), 1
	}
	if (uint64(idx)+n)*8+pageHeaderSize > uint64(len(buf)) {
		w.ps.addf("", fl, "the freelist claims %d pages, more than its page holds", n)
		return
	}
	free := map[uint64]bool{}
	for i := uint64(0); i < n; i++ {
		p := ne.Uint64(buf[pageHeaderSize+(uint64(idx)+i)*8:])
		switch {
		case p < 2 || p >= w.hwm:
			w.ps.addf("", fl, "the freelist lists page %d, outside the database", p)
		case free[p]:
			w.ps.addf("", fl, "the freelist lists page %d twice", p)
		case w.isSeen(p):
			w.ps.addf("", fl, "the freelist lists page %d, which is in use", p)
		}
		free[p] = true
	}
}

// mapped is a read-only view of a whole file.
type mapped struct {
	data  []byte
	unmap func()
}

// mapFile maps f's first size bytes read-only (see mmap_*.go).
func mapFile(f *os.File, size int64) (*mapped, error) {
	if size <= 0 {
		return &mapped{unmap: func() {}}, nil
	}
	if int64(int(size)) != size {
		return nil, fmt.Errorf("file of %d bytes is too large to map", size)
	}
	return mapWhole(f, int(size))
}
