package tui

import (
	"strings"
	"testing"
)

// Records --skip-invalid left out are said beside the samples, so an
// analyst does not take the file for the samples shown.
func TestTitleSaysSkippedRecords(t *testing.T) {
	for _, tt := range []struct {
		skipped int
		want    string
	}{{0, ""}, {2, "(2 invalid skipped)"}} {
		opts := fixtureOptions()
		opts.Skipped = tt.skipped
		m := newTestModel(t, opts, 120, 40)
		title := m.titleLine()
		if tt.want == "" && strings.Contains(title, "skipped") || tt.want != "" && !strings.Contains(title, tt.want) {
			t.Errorf("%d skipped: title %q", tt.skipped, title)
		}
	}
}
