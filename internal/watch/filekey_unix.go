//go:build unix

package watch

import (
	"fmt"
	"os"
	"syscall"
)

// fileKey is a file's identity, which a rename keeps.
func fileKey(fi os.FileInfo, path string) string {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fmt.Sprintf("%d:%d", uint64(st.Dev), uint64(st.Ino))
	}
	return "path:" + path
}
