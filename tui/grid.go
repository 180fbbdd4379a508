package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// A grid is a list drawn in columns as wide as their widest cell; when
// the line is too wide, the columns give up cells in a set order (steps).
// Cells are clipped, never wrapped.

type grid struct {
	cols []gridColumn
	rows [][]string // a cell a column, one line each, already sanitised
}

type gridColumn struct {
	title string
	right bool // numbers align right
	least int  // the width kept whatever the cells, so a pick shifts nothing
}

// gridStep narrows column col to floor cells, or takes it away when floor
// is 0, if the line is still too wide.
type gridStep struct{ col, floor int }

const (
	gridIndent = 2 // the left margin, as the table has
	gridGap    = 2
)

// layout gives each column its width for lines of width cells, -1 for
// a column left out, taking the steps in order until the line fits.
func (g grid) layout(width int, steps []gridStep) []int {
	w := make([]int, len(g.cols))
	for i, c := range g.cols {
		w[i] = widest(g.rows, max(c.least, ansi.StringWidth(c.title)), func(r []string) int { return ansi.StringWidth(r[i]) })
	}
	total := func() int {
		n, shown := gridIndent, 0
		for _, x := range w {
			if x >= 0 {
				n += x
				shown++
			}
		}
		return n + gridGap*max(shown-1, 0)
	}
	for _, st := range steps {
		over := total() - width
		switch {
		case over <= 0:
			return w
		case w[st.col] < 0:
		case st.floor == 0:
			w[st.col] = -1
		default:
			w[st.col] = max(w[st.col]-over, min(st.floor, w[st.col]))
		}
	}
	return w
}

// line is one line of the grid: the titles when row < 0, else a row.
func (g grid) line(widths []int, row int, tail string) string {
	var cells []string
	for i, c := range g.cols {
		if widths[i] < 0 {
			continue
		}
		s := c.title
		if row >= 0 {
			s = g.rows[row][i]
		}
		if s = truncate(s, widths[i], tail); c.right {
			cells = append(cells, padLeft(s, widths[i]))
		} else {
			cells = append(cells, fit(s, widths[i], ""))
		}
	}
	return strings.TrimRight(strings.Repeat(" ", gridIndent)+strings.Join(cells, strings.Repeat(" ", gridGap)), " ")
}

// pickList is the state the list screens (prompts, run picker) share.
type pickList struct {
	cursor  int
	loading bool
	err     string
	back    screen
}

// listRows draws a list screen's title, its column titles and the rows
// that fit above reserve lines, scrolled around the cursor; loadingText
// or emptyText when there are none.
func (m *Model) listRows(title, hint string, v *pickList, g grid, steps []gridStep, reserve int,
	loadingText, emptyText string, marked func(i int) bool) []string {
	st, n := m.st, len(g.rows)
	lines := []string{st.title.Render("ragscope") + " " + st.bold.Render(title) + st.muted.Render(m.g.sep+hint), ""}
	switch {
	case v.loading && n == 0:
		return append(lines, st.muted.Render("  "+loadingText+m.g.ellipsis), "")
	case n == 0:
		return append(lines, st.muted.Render("  "+emptyText), "")
	}
	widths := g.layout(m.width, steps)
	lines = append(lines, st.header.Render(fit(g.line(widths, -1, m.g.ellipsis), m.width, "")))
	// The rows that fit, scrolled just enough to keep the cursor on them.
	room := max(m.height-len(lines)-reserve-len(m.bottomLines())-1, 1)
	start := min(max(v.cursor-room+1, 0), max(n-room, 0))
	end := min(start+room, n)
	for i := start; i < end; i++ {
		l := g.line(widths, i, m.g.ellipsis)
		switch {
		case i == v.cursor:
			l = st.selected.Render(fit(l, m.width, ""))
		case marked(i):
			l = st.accent.Render(l)
		}
		lines = append(lines, l)
	}
	return append(lines, "")
}
