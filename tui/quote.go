package tui

import (
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"

	"github.com/ragscope/ragscope/internal/sanitize"
)

// markQuote styles the quote chunk[from:to] on the chunk's wrapped lines.
//
// The lines are the sanitised text (escapes shown as text, so a quote
// around one still lines up) with only spaces added or dropped where
// wrap broke them, so the quote is found by counting the other grapheme
// clusters: as many precede it on the lines as in the sanitised text before
// it. The viewport's own SetHighlights is not used: in bubbles v2.2.1 it
// takes byte offsets into the unstyled text yet looks for line ends in the
// styled one, and marks the wrong cells on a page with any style before
// the match. When the counts disagree (sanitising did not split at the
// quote's edges) the lines are left unmarked rather than marked wrongly.
func markQuote(lines []string, chunk string, from, to int, style lipgloss.Style) []string {
	shown := func(s string) string { return sanitize.Text(strings.ReplaceAll(s, "\r\n", "\n")) }
	skip, n := printedClusters(shown(chunk[:from])), printedClusters(shown(chunk[from:to]))
	if n == 0 || skip+n+printedClusters(shown(chunk[to:])) != printedClusters(shown(chunk)) {
		return lines
	}
	out := slices.Clone(lines)
	seen := 0
	for i, l := range out {
		col, c0, c1 := 0, -1, -1
		state := -1
		for rest := l; rest != ""; {
			var cl string
			cl, rest, _, state = uniseg.FirstGraphemeClusterInString(rest, state)
			w := ansi.StringWidth(cl)
			if !blankCluster(cl) {
				if seen >= skip && seen < skip+n {
					if c0 < 0 {
						c0 = col
					}
					c1 = col + w
				}
				seen++
			}
			col += w
		}
		if c0 >= 0 {
			out[i] = lipgloss.StyleRanges(l, lipgloss.NewRange(c0, c1, style))
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
