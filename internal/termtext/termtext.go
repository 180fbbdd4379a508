// Package termtext fits tables and prose to a terminal's width, which
// would otherwise wrap mid-word; output to a pipe or a file is left whole.
package termtext

import (
	"bytes"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/x/term"
	"github.com/mattn/go-runewidth"
)

// Width is the width text written to w should fit, 0 for no limit: the
// terminal's columns ($COLUMNS when set, as the shell keeps it up to date)
// when w is a terminal.
func Width(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return 0
	}
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	if n, _, err := term.GetSize(f.Fd()); err == nil && n > 0 {
		return n
	}
	return 80
}

// WriteTable writes rows (the first one the titles) in columns two spaces
// apart, as tabwriter would. When the rows are wider than width (> 0), the
// columns that fit stay, the first one always, and each row's other cells
// follow on the line under it, indented, as "title value" pairs wrapped
// between words.
func WriteTable(w io.Writer, width int, rows [][]string) {
	if len(rows) == 0 {
		return
	}
	n := 0
	for _, r := range rows {
		n = max(n, len(r))
	}
	colW := make([]int, n)
	for _, r := range rows {
		for i, c := range r {
			colW[i] = max(colW[i], runewidth.StringWidth(c))
		}
	}
	keep, total := n, 0
	for i, cw := range colW {
		if i > 0 {
			total += 2
		}
		total += cw
		if width > 0 && total > width && i > 0 {
			keep = i
			break
		}
	}
	titles := rows[0]
	var b strings.Builder
	for j, r := range rows {
		line := ""
		for i := 0; i < keep && i < len(r); i++ {
			if i > 0 {
				line += "  "
			}
			line += r[i]
			if i < keep-1 {
				line += strings.Repeat(" ", colW[i]-runewidth.StringWidth(r[i]))
			}
		}
		b.WriteString(strings.TrimRight(line, " ") + "\n")
		if j == 0 || keep == n {
			continue
		}
		var rest []string
		for i := keep; i < len(r); i++ {
			if r[i] == "" {
				continue
			}
			title := ""
			if i < len(titles) {
				title = strings.ToLower(titles[i]) + " "
			}
			rest = append(rest, title+r[i])
		}
		if len(rest) > 0 {
			b.WriteString(WrapWords("    "+strings.Join(rest, "  "), width, "    ") + "\n")
		}
	}
	io.WriteString(w, b.String())
}

// WrapWords breaks s between words so that no line passes width (a word
// longer than width gets a line of its own); continuation lines start
// with indent.
func WrapWords(s string, width int, indent string) string {
	if width <= 0 || runewidth.StringWidth(s) <= width {
		return s
	}
	var b strings.Builder
	col := 0
	for len(s) > 0 {
		// The next run of spaces, then the word after it.
		i := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsSpace(r) })
		if i < 0 {
			break
		}
		space, rest := s[:i], s[i:]
		j := strings.IndexFunc(rest, unicode.IsSpace)
		if j < 0 {
			j = len(rest)
		}
		word := rest[:j]
		ww := runewidth.StringWidth(word)
		if col > 0 && col+runewidth.StringWidth(space)+ww > width {
			b.WriteString("\n" + indent)
			col = runewidth.StringWidth(indent)
		} else {
			b.WriteString(space)
			col += runewidth.StringWidth(space)
		}
		b.WriteString(word)
		col += ww
		s = rest[j:]
	}
	return b.String()
}

// WrapWriter wraps the lines written to it between words at width. A line
// is held until its newline, so a word is never split between two writes
// (tabwriter writes a row cell by cell); Flush writes a last line without
// one (a question waiting for its answer).
type WrapWriter struct {
	W       io.Writer
	Width   int
	pending []byte
}

func (ww *WrapWriter) Write(p []byte) (int, error) {
	ww.pending = append(ww.pending, p...)
	for {
		i := bytes.IndexByte(ww.pending, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := string(ww.pending[:i])
		ww.pending = ww.pending[i+1:]
		if _, err := io.WriteString(ww.W, WrapWords(line, ww.Width, continuationIndent(line))+"\n"); err != nil {
			return len(p), err
		}
	}
}

// Flush writes what is held.
func (ww *WrapWriter) Flush() error {
	if len(ww.pending) == 0 {
		return nil
	}
	s := string(ww.pending)
	ww.pending = nil
	_, err := io.WriteString(ww.W, s)
	return err
}

// Flush writes out what w holds back, when it holds any (a WrapWriter).
func Flush(w io.Writer) {
	if f, ok := w.(interface{ Flush() error }); ok {
		_ = f.Flush()
	}
}

// continuationIndent lines a wrapped line up under its text: its own
// indentation and two spaces more.
func continuationIndent(line string) string {
	n := len(line) - len(strings.TrimLeft(line, " "))
	return strings.Repeat(" ", n+2)
}
