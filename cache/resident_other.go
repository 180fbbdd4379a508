//go:build !linux

package cache

// Elsewhere the pages stay resident until the kernel reclaims them.
func dontNeed(addr uintptr, n int64) {}

func fileResident() int64 { return 0 }

func dontNeedBytes(b []byte) {}
