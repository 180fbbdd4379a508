package dataset

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ragscope/ragscope/eval"
)

// source is a dataset that each pass opens anew.
type source struct {
	name string
	// open gives the dataset from its start, and done to call after.
	open func() (io.Reader, func(), error)
}

// fileSource is the dataset at path.
func fileSource(path string) *source {
	return &source{name: path, open: func() (io.Reader, func(), error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, fmt.Errorf("dataset: %w", err)
		}
		if st, err := f.Stat(); err == nil && st.IsDir() {
			f.Close()
			return nil, nil, &Error{File: path, Msg: "is a directory — pass a .jsonl, .json, .csv, .yaml, .parquet or .xlsx file, or a file of exported traces"}
		}
		return f, func() { f.Close() }, nil
	}}
}

// Scan reads the dataset at path as Load does, with the same errors and
// results, but keeps no sample: Samples is nil and Count says how many
// there are. Stream then gives the samples.
func Scan(path string, opt Options) (*Loaded, error) {
	return scan(fileSource(path), opt, false)
}

// scan reads the dataset, keeping its samples when keep is set.
func scan(src *source, opt Options, keep bool) (*Loaded, error) {
	var samples []eval.Sample
	l, err := readPass(src, opt, func(c *collector) {
		if keep {
			c.Sink = func(s eval.Sample) error {
				samples = append(samples, s)
				return nil
			}
		}
	})
	if err != nil {
		return nil, err
	}
	l.Samples = samples
	return l, nil
}

// Stream reads the dataset at path again after Scan(path, opt) returned
// scanned, and calls yield with each sample Load would return, in order,
// until yield returns false. It returns a *ChangedError if the file is not
// the one scanned (another sha256 or count); a sample past the scan's
// Count is not yielded.
func Stream(path string, opt Options, scanned *Loaded, yield func(eval.Sample) bool) error {
	if scanned == nil {
		return fmt.Errorf("dataset: Stream of %s without its Scan", path)
	}
	if opt.key() != scanned.opts {
		return fmt.Errorf("dataset: Stream of %s with options other than its Scan's — pass the same Options", path)
	}
	stopped := false
	l, err := readPass(fileSource(path), opt, func(c *collector) {
		c.IDs, c.Replay = nil, scanned.dups
		c.Sink = func(s eval.Sample) error {
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
	if errors.As(err, new(*Error)) {
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
	var what []string
	if e.SHA256 != "" {
		what = append(what, fmt.Sprintf("sha256 %s, was %s", e.SHA256, e.Was))
	}
	if e.Detail != "" {
		what = append(what, e.Detail)
	}
	return fmt.Sprintf("%s changed while it was being evaluated (%s); start a new run", e.File, strings.Join(what, "; "))
}

// key identifies what opt changes in a read, for Stream to refuse options
// other than its scan's (fmt prints a map sorted by key).
func (o Options) key() string {
	return fmt.Sprintf("%v|%t|%s|%d|%s", o.Map, o.SkipInvalid, o.Format, maxRecordBytes(o), o.Sheet)
}
