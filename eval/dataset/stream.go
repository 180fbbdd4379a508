package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ragscope/ragscope/eval"
)

// Reading a dataset larger than memory: Scan reads the file validating
// every record as Load does, keeping only counts (and, to tell repeated
// ids, a hash per id: see ids.go); Stream then reads it again, yielding the
// samples Load would have returned, and checks at the end that the file is
// the one scanned. Load is a scan that keeps the samples. Which formats are
// held whole during a pass is in the package comment.

// source is a dataset that each pass opens anew.
type source struct {
	name string
	// open gives the dataset from its start, and done to call after.
	open func() (io.Reader, func(), error)
	// again: it can be opened more than once (a file, or a reader that
	// can seek back).
	again bool
}

// fileSource is the dataset at path.
func fileSource(path string) *source {
	return &source{name: path, again: true, open: func() (io.Reader, func(), error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, fmt.Errorf("dataset: %w", err)
		}
		if st, err := f.Stat(); err == nil && st.IsDir() {
			f.Close()
			return nil, nil, &Error{File: path, Msg: "is a directory — pass a .jsonl, .json, .csv, .yaml or .parquet file"}
		}
		return f, func() { f.Close() }, nil
	}}
}

// readerSource is the dataset r holds, read again by seeking back to
// where r is now when it can.
func readerSource(name string, r io.Reader) *source {
	src := &source{name: name, open: func() (io.Reader, func(), error) { return r, func() {}, nil }}
	if rs, ok := r.(io.ReadSeeker); ok {
		if start, err := rs.Seek(0, io.SeekCurrent); err == nil {
			src.again = true
			src.open = func() (io.Reader, func(), error) {
				if _, err := rs.Seek(start, io.SeekStart); err != nil {
					return nil, nil, fmt.Errorf("%s: %w", name, err)
				}
				return r, func() {}, nil
			}
		}
	}
	return src
}

// Scan reads the dataset at path as Load does — every record validated,
// the same errors, Skipped, SkippedCount, SHA256 and Format — but keeps no
// sample: Samples is nil and Count says how many there are. Its memory is
// a record, the read buffer and some 11 to 32 bytes per id (fewer ids,
// less). Stream then gives the samples.
func Scan(path string, opt Options) (*Loaded, error) {
	return scan(fileSource(path), opt, false)
}

// scan reads the dataset, keeping its samples when keep is set.
func scan(src *source, opt Options, keep bool) (*Loaded, error) {
	for attempt := 0; ; attempt++ {
		var samples []eval.Sample
		var sink func(eval.Sample) error
		if keep {
			sink = func(s eval.Sample) error {
				samples = append(samples, s)
				return nil
			}
		}
		var ids idCheck = exactIDs{}
		hashed := (*hashedIDs)(nil)
		if src.again && attempt < hashedAttempts {
			hashed = &hashedIDs{hash: newIDHash(attempt)}
			ids = hashed
		}
		l, err := readPass(src, opt, func(c *collector) { c.ids, c.sink = ids, sink })
		if hashed != nil && len(hashed.suspects) > 0 && (err == nil || errors.Is(err, errSuspect)) {
			ok, cerr := confirm(src, opt, hashed, l)
			if cerr != nil {
				return nil, cerr
			}
			if !ok {
				continue
			}
			if err != nil { // without --skip-invalid: the first repeat is the error
				n := hashed.suspects[0].note
				return nil, &Error{File: n.file, Line: n.line, Unit: n.unit, Field: "id",
					Msg: dupMsg(n.file, n.unit, n.first, n.id, n.idKey), Skippable: true}
			}
			for _, sp := range hashed.suspects {
				if n := sp.note; n != nil {
					l.Skipped[n.skip].Reason = dupMsg(n.file, n.unit, n.first, n.id, n.idKey)
				}
			}
		}
		if err != nil {
			return nil, err
		}
		if keep {
			l.Samples = samples
		}
		return l, nil
	}
}

// confirm reads the dataset once more to tell the scan's suspected
// repeats from hash collisions, filling in where each repeated id was
// first used; ok is false when one was a collision, or when the file is
// no longer the one scanned (scanned is nil when the scan stopped at the
// first suspect): the scan must then be done again.
func confirm(src *source, opt Options, h *hashedIDs, scanned *Loaded) (ok bool, err error) {
	k := newConfirmIDs(h, scanned != nil)
	l, err := readPass(src, opt, func(c *collector) { c.ids = k })
	switch {
	case errors.Is(err, errConfirmed):
		return true, nil
	case errors.Is(err, errCollision):
		return false, nil
	case err != nil:
		var e *Error
		if errors.As(err, &e) {
			return false, nil // the file changed since the scan
		}
		return false, err
	}
	return k.next == len(h.suspects) && scanned != nil && l.SHA256 == scanned.SHA256, nil
}

// Stream reads the dataset at path again after Scan(path, opt) returned
// scanned, and calls yield with each valid sample in order: the samples
// Load would return, with the same Index, the records the scan skipped
// skipped again without a word. It holds one record at a time (see the
// package comment for the formats held whole), and the scan's record of
// the repeated ids it skipped, 8 bytes each. It stops when yield returns
// false, returning nil. Once the file is read it returns a *ChangedError
// if the file is not the one scanned: another sha256, or another number of
// records; a sample past the scan's Count is not yielded.
func Stream(path string, opt Options, scanned *Loaded, yield func(eval.Sample) bool) error {
	if scanned == nil {
		return fmt.Errorf("dataset: Stream of %s without its Scan", path)
	}
	if opt.key() != scanned.opts {
		return fmt.Errorf("dataset: Stream of %s with options other than its Scan's — pass the same Options", path)
	}
	stopped := false
	l, err := readPass(fileSource(path), opt, func(c *collector) {
		c.ids = &replayIDs{seqs: scanned.dups}
		c.sink = func(s eval.Sample) error {
			if s.Index >= scanned.Count {
				return nil // counted, to say so at the end
			}
			if !yield(s) {
				stopped = true
				return errStop
			}
			return nil
		}
	})
	if stopped {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		// The scan read it without this error: the file is another now.
		return &ChangedError{File: path, Was: scanned.SHA256, Detail: "it now fails to read: " + err.Error()}
	}
	if err != nil {
		return err
	}
	if l.SHA256 != scanned.SHA256 || l.Count != scanned.Count || l.SkippedCount != scanned.SkippedCount {
		ce := &ChangedError{File: path, SHA256: l.SHA256, Was: scanned.SHA256}
		switch {
		case l.Count != scanned.Count:
			ce.Detail = fmt.Sprintf("it now has %d valid samples, the scan found %d", l.Count, scanned.Count)
		case l.SkippedCount != scanned.SkippedCount:
			ce.Detail = fmt.Sprintf("it now has %d invalid records, the scan found %d", l.SkippedCount, scanned.SkippedCount)
		}
		return ce
	}
	return nil
}

// errStop ends a Stream whose yield asked to stop.
var errStop = errors.New("dataset: stream stopped")

// ChangedError is a dataset that changed between its Scan and a Stream of
// it: the samples streamed may not be those scanned, so the run built on
// the scan is not to be trusted.
type ChangedError struct {
	File string
	// SHA256 is the file's sha256 now ("" when the read failed before the
	// end); Was the scan's.
	SHA256, Was string
	// Detail says what else differs, if anything.
	Detail string
}

func (e *ChangedError) Error() string {
	what := ""
	if e.SHA256 != "" {
		what = fmt.Sprintf("sha256 %s, was %s", e.SHA256, e.Was)
	}
	if e.Detail != "" {
		if what != "" {
			what += "; "
		}
		what += e.Detail
	}
	return fmt.Sprintf("%s changed while it was being evaluated (%s); start a new run", e.File, what)
}

// key identifies what opt changes in a read, for Stream to refuse options
// other than its scan's (fmt prints a map sorted by key).
func (o Options) key() string {
	return fmt.Sprintf("%v|%t|%s|%d", o.Map, o.SkipInvalid, o.Format, maxRecordBytes(o))
}
