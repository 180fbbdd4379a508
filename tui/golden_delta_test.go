package tui

import (
	"fmt"
	"testing"
)

// TestGoldenDelta renders compare mode, the run picker and the filter bar
// at a roomy and a cramped size: the table sorted by ΔF ascending (the
// samples that got worst first) and filtered on df<0, the picker's runs of
// one minute, and the bar while typing, with a valid expression and with a
// half-typed one. Everything is driven through Update before the program
// starts, so no frame depends on when a command finishes. Update with
// -update.
func TestGoldenDelta(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, w, h int) *Model
		wait  string
	}{
		{"delta_sort", func(t *testing.T, w, h int) *Model {
			m := newDeltaModel(t, w, h)
			press(m, "s", "s")
			return m
		}, "ΔF^"},
		{"delta_filter", func(t *testing.T, w, h int) *Model {
			m := newDeltaModel(t, w, h)
			applyFilter(m, "df<0")
			return m
		}, "filter: df<0"},
		{"picker", func(t *testing.T, w, h int) *Model {
			m := newTestModel(t, hostOptions(deltaHost()), w, h)
			m.runID = deltaRuns()[1].ID
			pressDrive(t, m, "c", "j", "enter", "j")
			return m
		}, "compare runs"},
		{"filter_input", func(t *testing.T, w, h int) *Model {
			m := newTestModel(t, fixtureOptions(), w, h)
			press(m, "/")
			typeText(m, "f<0.5")
			return m
		}, "enter apply"},
		{"filter_hint", func(t *testing.T, w, h int) *Model {
			m := newTestModel(t, fixtureOptions(), w, h)
			applyFilter(m, "status:ok")
			press(m, "/", "ctrl+u")
			typeText(m, "f<")
			return m
		}, "is not a score"},
	}
	sizes := [][2]int{{100, 30}, {60, 20}}
	for _, tt := range tests {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tt.name, sz[0], sz[1]), func(t *testing.T) {
				requireGoldenFrame(t, tt.setup(t, sz[0], sz[1]), sz, nil, tt.wait)
			})
		}
	}
}
