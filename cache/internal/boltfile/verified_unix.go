//go:build unix

package boltfile

import (
	"os"
	"syscall"
)

// Identity is the file's device and inode, and its inode change time
// (ns), which every write and every change of its times sets.
func Identity(fi os.FileInfo) (dev, ino uint64, ctime int64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0, false
	}
	return uint64(st.Dev), st.Ino, ctimeOf(st), true
}
