package tui

import (
	"fmt"
	"testing"
	"time"
)

// TestGoldenCompare renders a finished re-run against its parent: the
// filter f<0.5 re-ran samples 0 and 6 after an edit of the verdict
// template, one verdict of sample 0 flipped. The re-run is driven through
// Update before the program starts, so the frames do not depend on when
// the Host's commands happen to finish. Update with -update.
func TestGoldenCompare(t *testing.T) {
	tests := []struct {
		name string
		keys []string
		wait string
	}{
		{"table", nil, "compare run-1"},
		{"detail", []string{"g", "enter"}, "compared: run-1"},
		{"detail_faithfulness", []string{"g", "enter", "1"}, "r re-runs faithfulness"},
	}
	sizes := [][2]int{{80, 24}, {120, 40}}
	for _, tt := range tests {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tt.name, sz[0], sz[1]), func(t *testing.T) {
				m := New(hostOptions(fixtureHost()))
				m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
				m.Update(windowSize(sz[0], sz[1]))
				applyFilter(m, "f<0.5")
				pressDrive(t, m, "R", "y")
				press(m, "esc") // clear the filter, keep the comparison
				if m.cmp == nil {
					t.Fatal("no comparison to render")
				}
				requireGoldenFrame(t, m, sz, tt.keys, tt.wait)
			})
		}
	}
}
