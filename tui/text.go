package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"

	"github.com/ragscope/ragscope/internal/sanitize"
)

// Every outside text reaches the screen through sanitize (sanitize.Line
// for one-line fields, wrap for bodies), before any width is measured, so
// it neither drives the terminal nor breaks the grid.

// mapped is f of each of vs, in order.
func mapped[T, U any](vs []T, f func(T) U) []U {
	out := make([]U, len(vs))
	for i, v := range vs {
		out[i] = f(v)
	}
	return out
}

// setIn stores v under k in *mp, making the map on first use.
func setIn[K comparable, V any](mp *map[K]V, k K, v V) {
	if *mp == nil {
		*mp = map[K]V{}
	}
	(*mp)[k] = v
}

// widest is the largest f of vs, least when none is larger.
func widest[T any](vs []T, least int, f func(T) int) int {
	for _, v := range vs {
		least = max(least, f(v))
	}
	return least
}

// truncate cuts s to at most w display cells, ending with tail when it cut.
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

// wrap sanitises text and breaks it to width cells where Unicode line
// breaking (UAX #14) allows, a word wider than the line between grapheme
// clusters. Paragraphs are kept, each continued under its own indent;
// spaces at a break are dropped, nothing else is.
func wrap(s string, width int) []string {
	width = max(width, 1)
	// A Windows line end is a line end; a lone CR is shown as \r.
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = sanitize.Text(s)
	s = strings.ReplaceAll(s, "\t", "    ")
	var out []string
	for _, para := range strings.Split(s, "\n") {
		out = append(out, wrapParagraph(para, width)...)
	}
	return out
}

// wrapParagraph wraps one line of the source, a segment per break
// opportunity.
func wrapParagraph(p string, width int) []string {
	if p == "" {
		return []string{""}
	}
	w := &lineWrapper{width: width, hang: hangingIndent(p, width)}
	var seg strings.Builder
	state := -1
	for p != "" {
		var cluster string
		var boundaries int
		cluster, p, boundaries, state = uniseg.StepString(p, state)
		seg.WriteString(cluster)
		brk := boundaries & uniseg.MaskLine
		if brk == uniseg.LineDontBreak && p != "" {
			continue
		}
		w.place(seg.String())
		seg.Reset()
		// A line end other than \n still ends the line (uniseg also
		// reports a mandatory break after some emoji, which is none).
		if brk == uniseg.LineMustBreak && p != "" && uniseg.HasTrailingLineBreakInString(cluster) {
			w.flush()
		}
	}
	return w.finish()
}

// hangingIndent is the paragraph's own indentation, at most about half
// the width.
func hangingIndent(p string, width int) string {
	n := len(p) - len(strings.TrimLeft(p, " "))
	return strings.Repeat(" ", max(min(n, (width-2)/2), 0))
}

// lineWrapper fills the lines of one paragraph.
type lineWrapper struct {
	width int
	hang  string
	lines []string
	cur   string
	curW  int  // cells in cur
	trail int  // spaces ending cur, dropped if the line breaks there
	text  bool // cur holds more than its indent
}

// place adds a segment on the current line if it fits, else on a new
// one, cut between clusters only if no line could hold it.
func (w *lineWrapper) place(seg string) {
	body := strings.TrimRight(seg, " ")
	if body != "" {
		bw := ansi.StringWidth(body)
		if w.curW+bw > w.width && w.text && len(w.hang)+bw <= w.width {
			w.flush()
		}
		if w.curW+bw <= w.width {
			w.write(body, bw)
		} else {
			w.cut(body)
		}
	}
	spaces := len(seg) - len(body)
	w.cur += seg[len(body):]
	w.curW += spaces
	w.trail += spaces
}

// cut writes a text wider than the room left, cluster by cluster.
func (w *lineWrapper) cut(body string) {
	state := -1
	for body != "" {
		var cluster string
		cluster, body, _, state = uniseg.StepString(body, state)
		cw := ansi.StringWidth(cluster)
		if w.curW+cw > w.width {
			if w.text {
				w.flush()
			} else {
				// Only indentation before it: give up what the cluster needs.
				w.dropTrail(w.curW + cw - w.width)
			}
		}
		w.write(cluster, cw)
	}
}

func (w *lineWrapper) write(s string, cells int) {
	w.cur += s
	w.curW += cells
	w.trail = 0
	w.text = true
}

// dropTrail removes up to n of the spaces that end the current line.
func (w *lineWrapper) dropTrail(n int) {
	n = min(n, w.trail)
	if n <= 0 {
		return
	}
	w.cur = w.cur[:len(w.cur)-n]
	w.curW -= n
	w.trail -= n
}

// flush ends the current line and starts the next at the hanging indent.
func (w *lineWrapper) flush() {
	w.dropTrail(w.trail)
	w.lines = append(w.lines, w.cur)
	w.cur = w.hang
	w.curW, w.trail, w.text = len(w.hang), 0, false
}

// finish ends the paragraph, keeping its trailing spaces as far as they fit.
func (w *lineWrapper) finish() []string {
	w.dropTrail(w.curW - w.width)
	return append(w.lines, w.cur)
}

// fitLines makes a block exactly h lines of at most w cells, a cut line
// ending with tail.
func fitLines(lines []string, w, h int, tail string) []string {
	out := make([]string, h)
	for i, l := range lines[:min(len(lines), h)] {
		out[i] = truncate(l, w, tail)
	}
	return out
}
