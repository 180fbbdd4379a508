package tui

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// plainScreen is the frame as a terminal without colour shows it
// (NO_COLOR): the marks must say everything the colours do.
func plainScreen(t *testing.T, m *Model) string {
	t.Helper()
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: colorprofile.NoTTY}
	if _, err := w.WriteString(m.View().Content); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// rowMarkOf is the first cell of sample index's line.
func rowMarkOf(t *testing.T, screen, question string) string {
	t.Helper()
	l := strings.TrimLeft(lineOf(screen, question), " ")
	if l == "" {
		t.Fatalf("no line with %q:\n%s", question, screen)
	}
	r := []rune(l)
	return string(r[0])
}

// TestScoredButFailingHasItsOwnMark: a sample whose scores fail (F 0.000,
// diagnosed generation) is not marked ✓ like a passing one, with or without
// colour and in the ASCII glyphs; status:low finds exactly those rows.
func TestScoredButFailingHasItsOwnMark(t *testing.T) {
	for _, ascii := range []bool{false, true} {
		opts := fixtureOptions()
		opts.ASCII = ascii
		m := newTestModel(t, opts, 120, 30)
		screen := plainScreen(t, m)
		for _, tc := range []struct {
			question, want string
		}{
			{"When was the Eiffel", m.g.ok},              // 1: ok
			{"小规模纳税人", m.g.low},                          // 0: F 0.333, generation
			{"Which database does the billing", m.g.low}, // 6: F 0.000 (and CP, CR n/a)
			{"Can I bring my dog", m.g.low},              // 3: noncommittal
			{"How many vacation days", m.g.fail},         // 5: a metric failed
		} {
			if got := rowMarkOf(t, screen, tc.question); got != tc.want {
				t.Errorf("ascii=%v %q: mark %q, want %q", ascii, tc.question, got, tc.want)
			}
		}
		if m.g.low == m.g.ok || m.g.low == m.g.warn || m.g.low == m.g.fail || m.g.low == m.g.running {
			t.Fatalf("ascii=%v: the low mark %q is another mark's", ascii, m.g.low)
		}
	}
	var m *Model
	for filter, want := range map[string][]int{
		"status:low": {0, 2, 3, 6},
		"status:ok":  {0, 1, 2, 3, 4},
		"status:n/a": {6},
	} {
		m = newTestModel(t, fixtureOptions(), 120, 30)
		applyFilter(m, filter)
		if got := shownSamples(m); !equalInts(got, want) {
			t.Errorf("%s: shown %v, want %v", filter, got, want)
		}
	}
	press(m, "esc", "?")
	if help := screenText(m); !strings.Contains(help, "status:failed|low|ok") || !strings.Contains(help, "low ("+m.g.low+")") {
		t.Errorf("the help does not name the low mark:\n%s", help)
	}
}

// TestPassLevelsMoveMarksAndColours: with Options.Levels (--pass
// faithfulness=0.9) a faithfulness of 0.5 fails: the sample is diagnosed
// generation, marked low and its score drawn in the low colour.
func TestPassLevelsMoveMarksAndColours(t *testing.T) {
	const q = "发票丢失了怎么办" // sample 4: F 0.5, recall 1
	def := newTestModel(t, fixtureOptions(), 120, 30)
	if got := rowMarkOf(t, plainScreen(t, def), q); got != def.g.ok {
		t.Fatalf("default levels: F 0.5 is marked %q, want %q", got, def.g.ok)
	}
	if def.st.bandOf(eval.Faithfulness, 0.5).Render("x") != def.st.mid.Render("x") {
		t.Fatal("default levels: F 0.5 is not amber")
	}
	opts := fixtureOptions()
	var err error
	if opts.Levels, err = report.ParseLevels("faithfulness=0.9"); err != nil {
		t.Fatal(err)
	}
	m := newTestModel(t, opts, 120, 30)
	screen := plainScreen(t, m)
	if got := rowMarkOf(t, screen, q); got != m.g.low {
		t.Fatalf("--pass faithfulness=0.9: F 0.5 is marked %q, want %q", got, m.g.low)
	}
	if !strings.Contains(lineOf(screen, q), "generation") {
		t.Fatalf("--pass faithfulness=0.9: %s", lineOf(screen, q))
	}
	// The header says by which levels the diagnoses read; the defaults
	// say nothing.
	if !strings.Contains(lineOf(screen, "diagnosis"), "pass faithfulness=0.9") {
		t.Errorf("the header does not give the levels: %q", lineOf(screen, "diagnosis"))
	}
	if strings.Contains(lineOf(plainScreen(t, def), "diagnosis"), "pass ") {
		t.Errorf("the default levels are named: %q", lineOf(plainScreen(t, def), "diagnosis"))
	}
	if m.st.bandOf(eval.Faithfulness, 0.5).Render("x") != m.st.low.Render("x") ||
		m.st.bandOf(eval.Faithfulness, 0.9).Render("x") != m.st.high.Render("x") ||
		m.st.bandOf(eval.ContextRecall, 0.5).Render("x") != m.st.mid.Render("x") {
		t.Fatal("the colours do not follow the pass levels")
	}
	// A new background keeps the levels.
	m.setBackground(false)
	if m.st.bandOf(eval.Faithfulness, 0.5).Render("x") != m.st.low.Render("x") {
		t.Fatal("the light palette lost the pass levels")
	}
	press(m, "?")
	if help := screenText(m); !strings.Contains(help, "pass level (faithfulness=0.9, others 0.5)") {
		t.Errorf("the help does not give the levels:\n%s", help)
	}
}
