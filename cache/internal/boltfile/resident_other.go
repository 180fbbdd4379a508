//go:build !linux

package boltfile

// Elsewhere the pages stay Resident until the kernel reclaims them.
func dontNeed(addr uintptr, n int64) {}

func FileResident() int64 { return 0 }

func DontNeed(b []byte) {}
