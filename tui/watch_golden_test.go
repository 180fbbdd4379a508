package tui

import (
	"fmt"
	"testing"
)

// TestGoldenWatch is the run screen following a live log (ragscope
// watch): newest first, the rolling-mean sparklines, the lag and the
// alerts; with --ascii the sparkline falls back to ASCII. Update with
// -update.
func TestGoldenWatch(t *testing.T) {
	for _, tt := range []struct {
		name  string
		ascii bool
		keys  []string
		wait  string
	}{
		{"table", false, nil, "diagnosis"},
		{"table_ascii", true, nil, "diagnosis"},
		{"detail", false, []string{"j", "enter"}, "sample 8"},
	} {
		for _, sz := range [][2]int{{80, 24}, {120, 40}} {
			t.Run(fmt.Sprintf("%s_%dx%d", tt.name, sz[0], sz[1]), func(t *testing.T) {
				m := watchModel(t, sz[0], sz[1], tt.ascii)
				feed(m, 0, 9)
				requireGoldenFrame(t, m, sz, tt.keys, tt.wait)
			})
		}
	}
}
