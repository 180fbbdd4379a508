//go:build !unix

package boltfile

import (
	"io"
	"os"
	"time"
)

// mapWhole reads the whole file where mmap is not available.
func mapWhole(f *os.File, size int) (*Mapped, error) {
	b := make([]byte, size)
	n, err := f.ReadAt(b, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return &Mapped{Data: b[:n], Unmap: func() {}}, nil
}

// Lock is left to bbolt where flock is not available.
func Lock(f *os.File, exclusive bool, timeout time.Duration) error { return nil }
