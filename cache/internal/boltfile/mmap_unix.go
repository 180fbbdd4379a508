//go:build unix

package boltfile

import (
	"fmt"
	"os"
	"syscall"
	"time"

	bolterrors "go.etcd.io/bbolt/errors"
)

func mapWhole(f *os.File, size int) (*Mapped, error) {
	b, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("map the file: %w", err)
	}
	return &Mapped{Data: b, Unmap: func() { _ = syscall.Munmap(b) }}, nil
}

// Lock takes an advisory lock on f as bbolt does (exclusive for a
// writer, shared for a reader), trying until timeout. bbolt's own lock on
// the same descriptor then succeeds at once.
func Lock(f *os.File, exclusive bool, timeout time.Duration) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if err != syscall.EWOULDBLOCK {
			return fmt.Errorf("lock the file: %w", err)
		}
		if !time.Now().Before(deadline) {
			return bolterrors.ErrTimeout
		}
		time.Sleep(LockRetry)
	}
}
