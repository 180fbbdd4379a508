// Package stacks reads the goroutines of the process from a stack dump, so
// that a test can wait until some block where it expects them, without
// sleeping.
package stacks

import (
	"runtime"
	"strings"
)

// Blocked counts the goroutines whose state begins with state ("select",
// "chan receive") and whose stack has fn ("cache.(*claims).claim(").
func Blocked(fn, state string) int {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	count := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		if strings.Contains(header, "["+state) && strings.Contains(g, fn) {
			count++
		}
	}
	return count
}
