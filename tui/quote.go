package tui

import (
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"

	"github.com/ragscope/ragscope/internal/sanitize"
)

// span is a range of bytes of a text: a quote in a chunk, a match in an
// answer.
type span struct{ from, to int }

// markQuote styles the spans of text (byte offsets) on its wrapped lines,
// found by counting the grapheme clusters wrap keeps (it only adds or
// drops spaces). A span whose counts disagree is left unmarked rather
// than marked wrongly. (The viewport's SetHighlights marks the wrong cells
// after a styled one.)
func markQuote(lines []string, text string, spans []span, style lipgloss.Style) []string {
	shown := func(s string) string { return sanitize.Text(strings.ReplaceAll(s, "\r\n", "\n")) }
	total := printedClusters(shown(text))
	var marked []span // in clusters of the sanitised text
	for _, sp := range spans {
		if sp.from < 0 || sp.to > len(text) || sp.from >= sp.to {
			continue
		}
		skip, n := printedClusters(shown(text[:sp.from])), printedClusters(shown(text[sp.from:sp.to]))
		if n > 0 && skip+n+printedClusters(shown(text[sp.to:])) == total {
			marked = append(marked, span{skip, skip + n})
		}
	}
	if len(marked) == 0 {
		return lines
	}
	in := func(k int) bool {
		return slices.ContainsFunc(marked, func(sp span) bool { return k >= sp.from && k < sp.to })
	}
	out := slices.Clone(lines)
	seen := 0
	for i, l := range out {
		// A run of marked clusters spans c0 to c1, blanks included.
		var ranges []lipgloss.Range
		col, c0, c1 := 0, -1, -1
		state := -1
		for rest := l; rest != ""; {
			var cl string
			cl, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
			w := ansi.StringWidth(cl)
			if !blankCluster(cl) {
				switch {
				case in(seen):
					if c0 < 0 {
						c0 = col
					}
					c1 = col + w
				case c0 >= 0:
					ranges = append(ranges, lipgloss.NewRange(c0, c1, style))
					c0 = -1
				}
				seen++
			}
			col += w
		}
		if c0 >= 0 {
			ranges = append(ranges, lipgloss.NewRange(c0, c1, style))
		}
		if len(ranges) > 0 {
			out[i] = lipgloss.StyleRanges(l, ranges...)
		}
	}
	return out
}

// printedClusters counts the grapheme clusters of s that wrap keeps as they
// are: all but spaces, tabs (wrap expands them) and line ends (it splits there).
func printedClusters(s string) int {
	n, state := 0, -1
	for s != "" {
		var cl string
		cl, s, _, state = uniseg.FirstGraphemeClusterInString(s, state)
		if !blankCluster(cl) {
			n++
		}
	}
	return n
}

func blankCluster(cl string) bool { return cl == " " || cl == "\t" || cl == "\n" }
