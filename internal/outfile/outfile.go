// Package outfile writes reports and exports complete or not at all:
// beside the destination, synced, then renamed into place, owner-only
// (reports hold the evaluated answers and contexts).
package outfile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// File is an output file being written.
type File struct {
	*os.File
	path   string
	done   bool
	target string // the file renamed over (path, or where its link points)
	// direct: the destination is not a regular file (/dev/null,
	// /dev/stdout, a named pipe) and is written in place: renaming over
	// it would replace the device with a file (--out /dev/null once
	// turned the machine's /dev/null into a regular file).
	direct bool
}

// Create starts writing path. Check errors early: a typo in --out must not
// cost a run, so callers create before they evaluate.
func Create(path string) (*File, error) {
	if fi, err := os.Stat(path); err == nil {
		switch {
		case fi.IsDir():
			return nil, fmt.Errorf("%s is a directory", path)
		case !fi.Mode().IsRegular():
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return nil, err
			}
			return &File{File: f, path: path, direct: true}, nil
		}
		// A symbolic link is followed: the file it points to is
		// replaced, the link stays.
		if real, err := filepath.EvalSymlinks(path); err == nil {
			return create(real, path)
		}
	}
	return create(path, path)
}

// create writes beside target, shown to the user as path.
func create(target, path string) (*File, error) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, path: path, target: target}, nil
}

// CreateOr is Create for an optional destination: path when one is
// given, else w as it is, with a nil File, whose Commit and Abort do
// nothing.
func CreateOr(path string, w io.Writer) (io.Writer, *File, error) {
	if path == "" {
		return w, nil, nil
	}
	f, err := Create(path)
	if err != nil {
		return nil, nil, err
	}
	return f, f, nil
}

// Commit makes the file visible at its path, complete; a nil File has
// nothing to commit.
func (f *File) Commit() error {
	if f == nil || f.done {
		return nil
	}
	f.done = true
	if f.direct {
		if err := f.File.Close(); err != nil {
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
		return nil
	}
	tmp := f.File.Name()
	err := f.File.Sync()
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, f.target)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w (nothing was written there)", f.path, err)
	}
	return nil
}

// Abort discards what was written; after Commit, or on a nil File, it
// does nothing, so it can be deferred.
func (f *File) Abort() {
	if f == nil || f.done {
		return
	}
	f.done = true
	f.File.Close()
	if !f.direct {
		os.Remove(f.File.Name())
	}
}

// Path is the destination.
func (f *File) Path() string { return f.path }

// Write replaces path with data whole, as Create and Commit do, creating
// its directory (owner-only) when it does not exist.
func Write(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// Reservation is a destination checked now, so that a typo in --out costs
// no run, and written when the run ends, so that a process killed meanwhile
// leaves no temporary file beside it.
type Reservation struct {
	path string
	// open is the destination itself when it is not a regular file (a
	// device, a pipe): nothing is left behind by keeping it open, and a
	// pipe opened and closed would tell its reader the output ended.
	open *File
}

// Reserve checks that path can be written the way Create writes it (its
// directory takes a new file, it is not a directory), leaving nothing
// behind.
func Reserve(path string) (*Reservation, error) {
	f, err := Create(path)
	if err != nil {
		return nil, err
	}
	if f.direct {
		return &Reservation{path: path, open: f}, nil
	}
	f.Abort()
	return &Reservation{path: path}, nil
}

// Create starts writing the reserved destination.
func (r *Reservation) Create() (*File, error) {
	if f := r.open; f != nil {
		r.open = nil
		return f, nil
	}
	return Create(r.path)
}

// Release gives up a reservation that was not written; a nil one holds
// nothing.
func (r *Reservation) Release() {
	if r != nil && r.open != nil {
		r.open.Abort()
		r.open = nil
	}
}
