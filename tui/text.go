package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// oneLine flattens text for a table cell: newlines, tabs and other control
// characters would break the grid, and a dataset may contain any of them.
func oneLine(s string) string {
	if !strings.ContainsFunc(s, isControl) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }

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
// and hard-breaking CJK runs that have no spaces to break at.
func wrap(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\t", "    ")
	var out []string
	for _, para := range strings.Split(s, "\n") {
		para = oneLine(para)
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
