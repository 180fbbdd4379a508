package tui

import (
	"github.com/ragscope/ragscope/eval"

	"charm.land/lipgloss/v2"
)

// glyphs holds every non-ASCII character the chrome uses, so --ascii (or a
// terminal that draws East-Asian ambiguous glyphs two cells wide) can swap
// them all at once without shifting columns.
type glyphs struct {
	ok, fail, warn, running string // status marks, one cell each
	ellipsis                string
	sep                     string // between header fields
	barFull, barEmpty       string
	bar                     string // cosine bars in the detail page
	ramp                    []string
	rule                    string
	unsupported             string
	delta, arrow            string // the change of a score, before -> after
}

var unicodeGlyphs = glyphs{
	ok: "✓", fail: "✗", warn: "!", running: "…",
	ellipsis: "…",
	sep:      " · ",
	barFull:  "█", barEmpty: "░",
	bar:         "█",
	ramp:        []string{" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"},
	rule:        "─",
	unsupported: "✗",
	delta:       "Δ",
	arrow:       "→",
}

var asciiGlyphs = glyphs{
	ok: "+", fail: "x", warn: "!", running: ".",
	ellipsis: "~",
	sep:      " | ",
	barFull:  "#", barEmpty: "-",
	bar:         "#",
	ramp:        []string{" ", ".", ":", "-", "=", "+", "*", "#", "@"},
	rule:        "-",
	unsupported: "x",
	delta:       "d",
	arrow:       "->",
}

// styles are built once; colours are 256-colour indices because that is
// what most SSH sessions advertise. Every colour-coded meaning also has a
// mark or a word so NO_COLOR loses nothing.
type styles struct {
	title, muted, accent, bold lipgloss.Style
	low, mid, high             lipgloss.Style
	failed, warn, running      lipgloss.Style
	selected                   lipgloss.Style
	header                     lipgloss.Style
	errorLine                  lipgloss.Style
	section                    lipgloss.Style
	emph                       lipgloss.Style
	dialog                     lipgloss.Style
}

func newStyles() styles {
	c := lipgloss.Color
	return styles{
		title:     lipgloss.NewStyle().Bold(true).Foreground(c("111")),
		muted:     lipgloss.NewStyle().Foreground(c("245")),
		accent:    lipgloss.NewStyle().Foreground(c("111")),
		bold:      lipgloss.NewStyle().Bold(true),
		low:       lipgloss.NewStyle().Foreground(c("203")),
		mid:       lipgloss.NewStyle().Foreground(c("214")),
		high:      lipgloss.NewStyle().Foreground(c("78")),
		failed:    lipgloss.NewStyle().Foreground(c("203")).Bold(true),
		warn:      lipgloss.NewStyle().Foreground(c("214")),
		running:   lipgloss.NewStyle().Foreground(c("245")),
		selected:  lipgloss.NewStyle().Reverse(true),
		header:    lipgloss.NewStyle().Bold(true).Underline(true),
		errorLine: lipgloss.NewStyle().Foreground(c("203")).Bold(true),
		section:   lipgloss.NewStyle().Bold(true).Foreground(c("111")),
		emph:      lipgloss.NewStyle().Foreground(c("203")).Bold(true),
		dialog: lipgloss.NewStyle().Border(lipgloss.NormalBorder()).
			BorderForeground(c("214")).Padding(0, 1),
	}
}

// band picks the style of a score: the thresholds are the diagnosis bands,
// so a red score is one the diagnosis calls low.
func (s styles) band(v float64) lipgloss.Style {
	switch {
	case v < eval.DiagLow:
		return s.low
	case v < eval.DiagHigh:
		return s.mid
	}
	return s.high
}
