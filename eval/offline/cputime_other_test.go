//go:build !unix

package offline

import "time"

var start = time.Now()

// cpuTime is the wall clock where the process's CPU time is not read.
func cpuTime() time.Duration { return time.Since(start) }
