// Package outfile writes the files ragscope hands to people and scripts
// (reports, exports) so that they are either complete or absent: written
// beside the destination, synced, then renamed into place. A full disk or
// an interrupted write never leaves a 0-byte or truncated report behind,
// and nothing already at the destination is lost until the new file is
// whole. Files are created 0600 (less if the umask says so): reports hold
// the evaluated answers and contexts.
package outfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// File is an output file being written.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts writing path. Check errors early: a typo in --out must not
// cost a run, so callers create before they evaluate.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a directory", path)
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, path: path}, nil
}

// Commit makes the file visible at its path, complete.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	tmp := f.File.Name()
	err := f.File.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w (nothing was written there)", f.path, err)
	}
	return nil
}

// Abort discards what was written; after Commit it does nothing, so it can
// be deferred.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	os.Remove(f.File.Name())
}

// Path is the destination.
func (f *File) Path() string { return f.path }
