package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/sanitize"
)

// Every text from a dataset, a judge, a file name or an error reaches the
// screen through sanitize: sanitize.Line for one-line fields (a table cell,
// an id, a title), wrap (sanitize.Text) for bodies. Escapes, C0/C1
// controls, bidi overrides and invisible characters show as visible text
// (\x1b, <U+202E>), so they neither drive the terminal nor break the grid.
// Sanitising comes before any width is measured: ansi's width functions
// count an escape sequence as zero cells.

// truncate cuts s to at most w display cells (wide CJK runes count two and
// are never split), ending with tail when it had to cut.
func truncate(s string, w int, tail string) string {
	if w <= 0 {
		return ""
	}
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, tail)
}

// fit truncates or pads s to exactly w cells.
func fit(s string, w int, tail string) string {
	s = truncate(s, w, tail)
	if n := ansi.StringWidth(s); n < w {
		s += strings.Repeat(" ", w-n)
	}
	return s
}

func padLeft(s string, w int) string {
	if n := ansi.StringWidth(s); n < w {
		return strings.Repeat(" ", w-n) + s
	}
	return s
}

// wrap breaks text to width cells, keeping the paragraphs of the source
// and hard-breaking CJK runs that have no spaces to break at. It sanitises
// the text (sanitize.Text), so every body wrapped is safe to print.
func wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	// A Windows line end is a line end; a lone CR is shown as \r.
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = sanitize.Text(s)
	s = strings.ReplaceAll(s, "\t", "    ")
	var out []string
	for _, para := range strings.Split(s, "\n") {
		if para == "" {
			out = append(out, "")
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(para, width, ""), "\n")...)
	}
	return out
}

// fitLines makes a block exactly h lines of at most w cells, so the footer
// always lands on the last row whatever the content above it.
func fitLines(lines []string, w, h int) []string {
	if len(lines) > h {
		lines = lines[:h]
	}
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = truncate(lines[i], w, "")
		}
	}
	return out
}
