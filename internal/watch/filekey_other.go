//go:build !unix

package watch

import "os"

// fileKey is the file's path where inodes are not to be had: a rename is
// then a new file, and its records are told apart as repeats by content.
func fileKey(_ os.FileInfo, path string) string { return "path:" + path }
