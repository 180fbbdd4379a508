package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/rivo/uniseg"

	"github.com/ragscope/ragscope/internal/sanitize"
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

// wrap breaks text to width cells where Unicode line breaking (UAX #14)
// allows it: between words, between CJK ideographs, never before a closing
// mark such as 。or ）. A word wider than the line is cut between grapheme
// clusters. Cells are counted the way the rest of the interface counts them
// (ansi.StringWidth: wide runes two, combining marks none, ambiguous ones
// as RUNEWIDTH_EASTASIAN says), so a wrapped line never exceeds width
// unless a single character is wider than it. The paragraphs of the source
// are kept, and the lines a paragraph continues on are indented like its
// first (the hanging indent of the raw calls' nested text). Spaces at a
// break are dropped; nothing else is. wrap sanitises the text
// (sanitize.Text), so every body wrapped is safe to print.
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
		out = append(out, wrapParagraph(para, width)...)
	}
	return out
}

// wrapParagraph wraps one line of the source. It gathers the grapheme
// clusters up to each break opportunity into a segment and places it.
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
		// Sanitising leaves no line end but \n, which split the
		// paragraphs; any other still ends the line. (uniseg also reports
		// a mandatory break after some emoji, which is none.)
		if brk == uniseg.LineMustBreak && p != "" && uniseg.HasTrailingLineBreakInString(cluster) {
			w.flush()
		}
	}
	return w.finish()
}

// hangingIndent is the paragraph's own indentation, repeated on the lines
// it continues on; at most about half the width, so they keep room for
// text and always for one wide rune.
func hangingIndent(p string, width int) string {
	n := len(p) - len(strings.TrimLeft(p, " "))
	return strings.Repeat(" ", max(min(n, (width-2)/2), 0))
}

// lineWrapper fills the lines of one paragraph.
type lineWrapper struct {
	width int
	hang  string
	lines []string
	cur   strings.Builder
	curW  int  // cells in cur
	trail int  // spaces ending cur, dropped if the line breaks there
	text  bool // cur holds more than its indent
}

// place adds a segment: the text up to a break opportunity and the spaces
// after it. The text goes on the current line if it fits, else on a new
// one, and is cut between clusters only if no line could hold it.
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
	w.cur.WriteString(seg[len(body):])
	w.curW += spaces
	w.trail += spaces
}

// cut writes a text wider than the room left, cluster by cluster, breaking
// the line where the next cluster would overflow it; a wide rune moves
// whole to the next line.
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
				// Only indentation before it: give up as much of the
				// source's leading spaces as the cluster needs.
				w.dropTrail(w.curW + cw - w.width)
			}
		}
		w.write(cluster, cw)
	}
}

func (w *lineWrapper) write(s string, cells int) {
	w.cur.WriteString(s)
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
	s := w.cur.String()
	w.cur.Reset()
	w.cur.WriteString(s[:len(s)-n])
	w.curW -= n
	w.trail -= n
}

// flush ends the current line at a break and starts the next one at the
// hanging indent.
func (w *lineWrapper) flush() {
	w.dropTrail(w.trail)
	w.lines = append(w.lines, w.cur.String())
	w.cur.Reset()
	w.cur.WriteString(w.hang)
	w.curW, w.trail, w.text = len(w.hang), 0, false
}

// finish ends the paragraph, keeping its trailing spaces as far as they fit.
func (w *lineWrapper) finish() []string {
	w.dropTrail(w.curW - w.width)
	return append(w.lines, w.cur.String())
}

// fitLines makes a block exactly h lines of at most w cells, so the footer
// always lands on the last row whatever the content above it. A line cut
// to fit ends with tail, so a clipped field never looks complete.
func fitLines(lines []string, w, h int, tail string) []string {
	if len(lines) > h {
		lines = lines[:h]
	}
	out := make([]string, h)
	for i := range out {
		if i < len(lines) {
			out[i] = truncate(lines[i], w, tail)
		}
	}
	return out
}
