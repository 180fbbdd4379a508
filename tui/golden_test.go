package tui

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"
	"github.com/ragscope/ragscope/eval/report"
)

// TestGolden drives the real program (teatest) over the fixed finished run
// and compares the final screen with testdata/TestGolden/*.golden. The
// screen is the model's last frame downsampled to the ASCII colour profile
// (text attributes kept, colours dropped), which is stable where the
// renderer's byte stream depends on frame timing. Update with -update.
func TestGolden(t *testing.T) {
	priced := &report.Pricing{Table: "built-in (2025-09-30)",
		Chat:       &report.ModelPrice{Model: "gpt-4o-mini", Prompt: 0.15, Completion: 0.60},
		Embeddings: &report.ModelPrice{Model: "text-embedding-3-small", Prompt: 0.02}}
	tests := []struct {
		name    string
		keys    []string
		wait    string
		pricing *report.Pricing
	}{
		{"run", nil, "diagnosis", nil},
		// The header prices the tokens it counts, or says it cannot.
		{"run_cost", nil, "diagnosis", priced},
		{"run_unpriced", nil, "diagnosis", &report.Pricing{Unpriced: []string{"gpt-4o-mini"}}},
		// Sort by faithfulness, step to the taxpayer sample, open it.
		{"detail", []string{"s", "g", "j", "enter"}, "sample 0", nil},
		{"detail_faithfulness", []string{"s", "g", "j", "enter", "1"}, "1 faithfulness", nil},
		{"filtered", []string{"/", "f", "<", "0", ".", "5", "enter"}, "filter: f<0.5", nil},
	}
	sizes := [][2]int{{80, 24}, {120, 40}}
	for _, tt := range tests {
		for _, sz := range sizes {
			t.Run(fmt.Sprintf("%s_%dx%d", tt.name, sz[0], sz[1]), func(t *testing.T) {
				opts := fixtureOptions()
				opts.Pricing = tt.pricing
				m := New(opts)
				m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
				requireGoldenFrame(t, m, sz, tt.keys, tt.wait)
			})
		}
	}
}

// requireGoldenFrame runs the model in a real program at size sz, sends the
// keys, waits for the text wait, and compares the last frame, downsampled
// to the ASCII colour profile, with the test's golden file.
func requireGoldenFrame(t *testing.T, m *Model, sz [2]int, keys []string, wait string) {
	t.Helper()
	tm := teatest.NewTestModel(t, m,
		teatest.WithInitialTermSize(sz[0], sz[1]),
		teatest.WithProgramOptions(tea.WithColorProfile(colorprofile.ASCII)))
	for _, k := range keys {
		tm.Send(keyMsg(k))
	}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool {
		return bytes.Contains(b, []byte(wait))
	}, teatest.WithDuration(5*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	if err := tm.Quit(); err != nil {
		t.Fatal(err)
	}
	final := tm.FinalModel(t, teatest.WithFinalTimeout(5*time.Second)).(*Model)
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: colorprofile.ASCII}
	if _, err := w.WriteString(final.View().Content); err != nil {
		t.Fatal(err)
	}
	golden.RequireEqual(t, buf.Bytes())
}
