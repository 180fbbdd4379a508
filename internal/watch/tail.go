package watch

import (
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/ragscope/ragscope/cache"
)

// printLen is how many first bytes of a log identify its content beside
// its inode: enough to tell a new file that reused an inode, or a file
// truncated and written again (copytruncate), from the one we read.
const printLen = 1024

// tailFile is one log file being followed.
type tailFile struct {
	st      cache.WatchFile
	path    string
	gz      bool
	f       *os.File
	r       *bufio.Reader
	partial []byte // an unterminated last line, still being written: neither consumed nor committed
	plen    int64  // bytes of the partial line, past the --max-record-bytes held in partial
	size    int64
	since   time.Time // when bytes past the committed offset were first seen
	matched bool      // a LOG argument names it now
	rotated bool      // renamed away while no one watched: read to its end, then let go
	eof     bool      // the last read reached its end
	dirty   bool      // st changed since the last commit
}

// tailer finds the files the LOG arguments name and reads their new lines.
type tailer struct {
	patterns []string
	files    map[string]*tailFile
	stored   map[string]cache.WatchFile // from the state, not seen on disk yet
	forget   []string
	warn     func(string)
}

func newTailer(patterns []string, stored []cache.WatchFile, warn func(string)) *tailer {
	t := &tailer{patterns: patterns, files: map[string]*tailFile{}, stored: map[string]cache.WatchFile{}, warn: warn}
	for _, f := range stored {
		t.stored[f.Key] = f
	}
	return t
}

// expand lists the files the arguments name now: a file, a glob, or a
// directory (its regular files, rotated ones included).
func (t *tailer) expand() []string {
	var out []string
	for _, p := range t.patterns {
		out = append(out, t.expand1(p)...)
	}
	sort.Strings(out)
	return out
}

// expand1 lists the files one argument names now (a file only once it
// exists).
func (t *tailer) expand1(p string) []string {
	if st, err := os.Stat(p); err == nil && st.IsDir() {
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil
		}
		var out []string
		for _, e := range ents {
			if e.Type().IsRegular() {
				out = append(out, filepath.Join(p, e.Name()))
			}
		}
		return out
	} else if err == nil {
		return []string{p}
	}
	if strings.ContainsAny(p, "*?[") {
		m, _ := filepath.Glob(p)
		return m
	}
	return nil
}

// scan matches the files on disk with those followed. A file is known by
// its inode, so a renamed log keeps its place; one no longer named is read
// to its end through the descriptor still open, then let go.
func (t *tailer) scan(now time.Time, first bool) {
	for _, tf := range t.files {
		tf.matched = false
	}
	for _, p := range t.expand() {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		key := fileKey(fi, p)
		tf := t.files[key]
		if tf == nil {
			tf = &tailFile{gz: strings.HasSuffix(p, ".gz")}
			if st, ok := t.stored[key]; ok {
				tf.st = st
				delete(t.stored, key)
			} else {
				tf.st = cache.WatchFile{Key: key}
				tf.dirty = true
			}
			t.files[key] = tf
		}
		if tf.path != p {
			tf.path, tf.st.Path, tf.dirty = p, p, true
		}
		tf.matched = true
		tf.size = fi.Size()
		if tf.size > tf.st.Offset && tf.since.IsZero() && !tf.st.Done {
			tf.since = now
		}
	}
	if first {
		for _, p := range t.patterns {
			if len(t.expand1(p)) == 0 {
				t.warn(fmt.Sprintf("LOG %s matches no file yet: it is read once it appears", p))
			}
		}
		// Files of an earlier session no argument names now were rotated
		// while no one watched: one renamed beside its old path (logrotate's
		// app.jsonl.1) is read to its end, as it would have been had the
		// watcher run; one moved elsewhere or compressed cannot be read.
		dirs := map[string]map[string]string{} // each directory read once
		for k, st := range t.stored {
			if p, fi, ok := renamed(st, dirs); ok {
				tf := &tailFile{st: st, path: p, gz: strings.HasSuffix(p, ".gz"), size: fi.Size(), dirty: true, rotated: true}
				tf.st.Path = p
				t.files[k] = tf
				continue
			}
			if _, err := os.Stat(st.Path); err == nil && !st.Done {
				// Its name holds a new file: the old one, with what was
				// written to it last, was moved where we cannot see it.
				t.warn(fmt.Sprintf("%s is gone since the last watch (rotated away?): whatever was written to it after line %d was not read — name the rotated files too (a glob: '%s*')", st.Path, st.Line, st.Path))
			}
			t.forget = append(t.forget, k)
		}
		t.stored = map[string]cache.WatchFile{}
	}
}

// renamed finds a file an earlier session followed under another name
// in the directory it was in: its inode, with the content it was read as.
func renamed(st cache.WatchFile, dirs map[string]map[string]string) (string, os.FileInfo, bool) {
	if st.Done || st.Path == "" {
		return "", nil, false
	}
	dir := filepath.Dir(st.Path)
	keys, read := dirs[dir]
	if !read {
		keys = filesByKey(dir)
		dirs[dir] = keys
	}
	p, ok := keys[st.Key]
	if !ok {
		return "", nil, false
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Size() < st.Offset || !sameStart(p, st) {
		return "", nil, false
	}
	return p, fi, true
}

// filesByKey maps the regular files of dir by their identity (fileKey).
func filesByKey(dir string) map[string]string {
	out := map[string]string{}
	ents, _ := os.ReadDir(dir) // a directory gone holds nothing
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			out[fileKey(fi, p)] = p
		}
	}
	return out
}

// sameStart: the file begins with the bytes the state printed; an inode
// reused by another file does not.
func sameStart(path string, st cache.WatchFile) bool {
	if st.PrintLen == 0 {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, st.PrintLen)
	n, _ := f.ReadAt(head, 0)
	return n == st.PrintLen && fingerprint(head) == st.Print
}

// check opens a file and makes sure its content is still the one whose
// offset we hold: a file shorter than the offset, or whose first bytes
// changed, was truncated (copytruncate) or replaced, and is read from its
// start. Reading a line twice is harmless: repeats are told by content.
func (t *tailer) check(tf *tailFile) error {
	if tf.st.Done {
		return nil
	}
	if tf.f == nil {
		if !tf.matched && !tf.rotated {
			return nil
		}
		f, err := os.Open(tf.path)
		if err != nil {
			return err
		}
		fi, err := f.Stat()
		if err != nil || fileKey(fi, tf.path) != tf.st.Key {
			// Rotated between the scan and the open: the next scan sees it.
			f.Close()
			return nil
		}
		tf.f, tf.size = f, fi.Size()
	} else if fi, err := tf.f.Stat(); err == nil {
		tf.size = fi.Size()
	}
	head := make([]byte, min(tf.size, printLen))
	n, _ := tf.f.ReadAt(head, 0)
	head = head[:n]
	reset := !tf.gz && (tf.size < tf.st.Offset ||
		tf.st.PrintLen > 0 && (len(head) < tf.st.PrintLen || fingerprint(head[:tf.st.PrintLen]) != tf.st.Print))
	if reset {
		t.warn(fmt.Sprintf("%s was truncated or replaced (copytruncate?): reading it again from its start", tf.path))
		tf.st.Offset, tf.st.Line, tf.r, tf.partial, tf.plen, tf.dirty = 0, 0, nil, nil, 0, true
		tf.st.PrintLen = 0
	}
	if len(head) > tf.st.PrintLen && !tf.gz {
		tf.st.Print, tf.st.PrintLen, tf.dirty = fingerprint(head), len(head), true
	}
	if tf.r == nil {
		if tf.gz {
			if _, err := tf.f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			zr, err := gzip.NewReader(tf.f)
			if err != nil {
				return fmt.Errorf("%s: %v", tf.path, err)
			}
			tf.r = bufio.NewReaderSize(zr, 64<<10)
			// The offset of a compressed file counts uncompressed bytes.
			if _, err := io.CopyN(io.Discard, tf.r, tf.st.Offset); err != nil {
				return fmt.Errorf("%s: %v", tf.path, err)
			}
		} else {
			if _, err := tf.f.Seek(tf.st.Offset, io.SeekStart); err != nil {
				return err
			}
			tf.r = bufio.NewReaderSize(tf.f, 64<<10)
		}
	}
	return nil
}

// line is one complete line read.
type line struct {
	text []byte
	num  int
}

// next reads the file's next complete line; ok false at its end for now.
// final takes an unterminated last line as complete (a compressed file,
// or --once).
func (t *tailer) next(tf *tailFile, final bool, limit int64) (line, bool, error) {
	if tf.r == nil || tf.st.Done {
		return line{}, false, nil
	}
	for {
		b, err := tf.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			tf.partial = append(tf.partial, b...)
			tf.plen += int64(len(b))
			if int64(len(tf.partial)) > limit+2 {
				// Held to --max-record-bytes: the rest of the line is read
				// and dropped, the decoder reports it as too big.
				tf.partial = tf.partial[:limit+2]
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return line{}, false, fmt.Errorf("%s: %v", tf.path, err)
		}
		if err != nil {
			tf.eof = true
			if !(final || tf.gz) || tf.plen+int64(len(b)) == 0 {
				// Not consumed: the bytes stay in partial (ReadSlice does not
				// give them again) and the offset stays before them until the
				// newline.
				tf.partial = append(tf.partial, b...)
				tf.plen += int64(len(b))
				return line{}, false, nil
			}
		}
		text, n := b, int64(len(b))
		if tf.plen > 0 {
			text = append(tf.partial, b...)
			n += tf.plen
			tf.partial, tf.plen = nil, 0
		}
		tf.st.Offset += n
		tf.st.Line++
		tf.dirty = true
		return line{text: text, num: tf.st.Line}, true, nil
	}
}

// finishEOF closes what is read whole: a compressed file (Done, never read
// again) and a file no argument names any more (rotated away).
func (t *tailer) finishEOF(tf *tailFile) {
	if !tf.eof {
		return
	}
	if tf.gz && !tf.st.Done {
		tf.st.Done, tf.dirty = true, true
		tf.close()
		return
	}
	if !tf.matched {
		tf.close()
		delete(t.files, tf.st.Key)
		t.forget = append(t.forget, tf.st.Key)
	}
}

func (tf *tailFile) close() {
	if tf.f != nil {
		tf.f.Close()
	}
	tf.f, tf.r = nil, nil
}

// behind is how many bytes of the followed files are not read yet, and
// since when the oldest of them waits.
func (t *tailer) behind(now time.Time) (int64, time.Duration) {
	var n int64
	var oldest time.Duration
	for _, tf := range t.files {
		if tf.st.Done || tf.gz {
			continue
		}
		if d := tf.size - tf.st.Offset - tf.plen; d > 0 {
			n += d
			if !tf.since.IsZero() && now.Sub(tf.since) > oldest {
				oldest = now.Sub(tf.since)
			}
		} else {
			tf.since = time.Time{}
		}
	}
	return n, oldest
}

func (t *tailer) closeAll() {
	for _, tf := range t.files {
		tf.close()
	}
}

func fingerprint(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}
