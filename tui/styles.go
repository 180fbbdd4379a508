package tui

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// glyphs holds every non-ASCII character the chrome uses, so --ascii can
// swap them all at once without shifting columns.
type glyphs struct {
	ok, low, fail, warn, running string // status marks, one cell each
	ellipsis                     string
	sep                          string // between header fields
	barFull, barEmpty            string
	bar                          string // cosine bars in the detail page
	ramp                         []string
	unsupported                  string
	delta, arrow                 string // the change of a score, before -> after
	unpriced                     string // a cost whose model has no price
}

var unicodeGlyphs = glyphs{
	ok: "✓", low: "▾", fail: "✗", warn: "!", running: "…",
	ellipsis: "…",
	sep:      " · ",
	barFull:  "█", barEmpty: "░",
	bar:         "█",
	ramp:        []string{" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"},
	unsupported: "✗",
	delta:       "Δ",
	arrow:       "→",
	unpriced:    "—",
}

var asciiGlyphs = glyphs{
	ok: "+", low: "v", fail: "x", warn: "!", running: ".",
	ellipsis: "~",
	sep:      " | ",
	barFull:  "#", barEmpty: "-",
	bar:         "#",
	ramp:        []string{" ", ".", ":", "-", "=", "+", "*", "#", "@"},
	unsupported: "x",
	delta:       "d",
	arrow:       "->",
	unpriced:    "-",
}

// styles are built from a palette for the terminal's background (dark
// until it reports a light one), in 256 colours as most SSH sessions
// advertise. Every colour also has a mark or a word, for NO_COLOR.
type styles struct {
	title, muted, accent, bold lipgloss.Style
	low, mid, high             lipgloss.Style
	failed, warn, running      lipgloss.Style
	selected                   lipgloss.Style
	header                     lipgloss.Style
	errorLine                  lipgloss.Style
	section                    lipgloss.Style
	emph                       lipgloss.Style
	levels                     report.Levels // the score bands'
	crit                       critSet
}

// palette is the semantic colours of one background, each with a WCAG
// contrast of at least 3:1 against it (TestPaletteContrast).
type palette struct {
	ok, warn, fail, muted, accent color.Color
	selFg, selBg                  color.Color
}

var (
	darkPalette = palette{
		ok: lipgloss.Color("78"), warn: lipgloss.Color("214"), fail: lipgloss.Color("203"),
		muted: lipgloss.Color("245"), accent: lipgloss.Color("111"),
		selFg: lipgloss.Color("255"), selBg: lipgloss.Color("24"),
	}
	lightPalette = palette{
		ok: lipgloss.Color("28"), warn: lipgloss.Color("130"), fail: lipgloss.Color("160"),
		muted: lipgloss.Color("242"), accent: lipgloss.Color("25"),
		selFg: lipgloss.Color("232"), selBg: lipgloss.Color("153"),
	}
)

// setBackground switches every style to the background the terminal reported.
func (m *Model) setBackground(dark bool) {
	p := lightPalette
	if dark {
		p = darkPalette
	}
	levels, crit := m.st.levels, m.st.crit
	m.st = paletteStyles(p)
	m.st.levels, m.st.crit = levels, crit
	m.help.Styles = helpStyles(p)
	m.input.SetStyles(textinput.DefaultStyles(dark))
	m.detail.invalidate()
	m.raw.lines = nil
}

// helpStyles colour the key help from the palette; bubbles' own greys
// fall below 3:1 on white.
func helpStyles(p palette) help.Styles {
	key := lipgloss.NewStyle().Foreground(p.accent)
	desc := lipgloss.NewStyle().Foreground(p.muted)
	return help.Styles{
		ShortKey: key, ShortDesc: desc, ShortSeparator: desc, Ellipsis: desc,
		FullKey: key, FullDesc: desc, FullSeparator: desc,
	}
}

func paletteStyles(p palette) styles {
	fg := func(c color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	return styles{
		title:  fg(p.accent).Bold(true),
		muted:  fg(p.muted),
		accent: fg(p.accent),
		bold:   lipgloss.NewStyle().Bold(true),
		low:    fg(p.fail),
		mid:    fg(p.warn),
		high:   fg(p.ok),
		failed: fg(p.fail).Bold(true),
		warn:   fg(p.warn),
		// Reversed with its colours swapped: without colours, still reversed.
		selected:  lipgloss.NewStyle().Reverse(true).Foreground(p.selBg).Background(p.selFg),
		running:   fg(p.muted),
		header:    lipgloss.NewStyle().Bold(true).Underline(true),
		errorLine: fg(p.fail).Bold(true),
		section:   fg(p.accent).Bold(true),
		emph:      fg(p.fail).Bold(true),
	}
}

// bandOf is the style of a score of metric mt by the pass levels, so a
// red score is one the diagnosis calls low.
func (s styles) bandOf(mt eval.Metric, v float64) lipgloss.Style {
	if s.crit.slot(mt) >= 0 {
		if s.crit.passes(mt, v) {
			return s.high
		}
		return s.low
	}
	switch s.levels.Band(mt, v) {
	case report.BandLow:
		return s.low
	case report.BandMid:
		return s.mid
	}
	return s.high
}

// changeStyle colours a change of a score of mt: better is high, worse low.
func (s styles) changeStyle(mt eval.Metric, d float64) lipgloss.Style {
	if (d < 0) != eval.LowerIsBetter(mt) {
		return s.low
	}
	return s.high
}

// band is the style of a value that is no metric's score (a cosine bar).
func (s styles) band(v float64) lipgloss.Style {
	switch {
	case v < report.DiagLow:
		return s.low
	case v < report.DiagHigh:
		return s.mid
	}
	return s.high
}
