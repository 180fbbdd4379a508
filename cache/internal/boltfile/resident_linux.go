package boltfile

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// dontNeed drops n bytes of a shared file mapping at addr from the Resident
// set; failure only leaves them Resident.
func dontNeed(addr uintptr, n int64) {
	if addr == 0 || n <= 0 {
		return
	}
	_, _, _ = syscall.Syscall(syscall.SYS_MADVISE, addr, uintptr(n), syscall.MADV_DONTNEED)
}

// DontNeed drops a mapping of our own (the pre-open check's) from the
// resident set.
func DontNeed(b []byte) {
	if len(b) > 0 {
		_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}

// FileResident is the bytes of files mapped into this process that are
// Resident (the "shared" field of /proc/self/statm), 0 when unknown.
func FileResident() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0
	}
	pages, err := strconv.ParseInt(string(f[2]), 10, 64)
	if err != nil {
		return 0
	}
	return pages * int64(os.Getpagesize())
}
