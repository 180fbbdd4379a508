//go:build !unix

package cache

import (
	"io"
	"os"
	"time"
)

// mapWhole reads the whole file where mmap is not available.
func mapWhole(f *os.File, size int) (*mapped, error) {
	b := make([]byte, size)
	n, err := f.ReadAt(b, 0)
	if err != nil && err != io.EOF {
		return nil, err
	}
	return &mapped{data: b[:n], unmap: func() {}}, nil
}

// lockFile is left to bbolt where flock is not available.
func lockFile(f *os.File, exclusive bool, timeout time.Duration) error { return nil }
