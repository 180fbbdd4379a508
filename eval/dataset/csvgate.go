package dataset

import (
	"bytes"
	"io"
)

// csvGate sits between the file and the CSV reader, which holds a row
// whole, and keeps any row larger than the limit from reaching it. A row
// ends at a newline outside quoted cells (see rowEnd). Each row is held back until it ends; one over the limit is measured
// and dropped as it streams by, and replaced by a row "-" that readCSV
// recognises by its offset and reports as a row too big.
type csvGate struct {
	src   io.Reader
	limit int64
	comma byte

	buf    []byte
	in     []byte
	srcErr error
	out    []byte
	outOff int64
	line   int // newlines passed in src before in

	// The row being held.
	started   bool
	state     int
	held      []byte
	over      bool
	startLine int
	sizer     *csvSizer
	dropped   int

	// The rows "-" put in place of dropped rows.
	standIns
}

func newCSVGate(c *collector, src io.Reader, comma rune) *csvGate {
	g := &csvGate{src: src, limit: c.limit, buf: make([]byte, 64<<10)}
	if comma < 0x80 {
		g.comma = byte(comma)
	}
	return g
}

func (g *csvGate) Read(p []byte) (int, error) {
	for len(g.out) == 0 {
		if len(g.in) == 0 {
			if g.srcErr != nil {
				if g.started {
					g.endRow()
					continue
				}
				return 0, g.srcErr
			}
			n, err := g.src.Read(g.buf)
			g.in, g.srcErr = g.buf[:n], err
			continue
		}
		if !g.started {
			g.started, g.state, g.held, g.over, g.sizer, g.dropped = true, csvCellStart, g.held[:0], false, nil, 0
			g.startLine = 1 + g.line
		}
		n, done := g.rowEnd(g.in)
		g.take(g.in[:n])
		g.in = g.in[n:]
		if done {
			g.endRow()
		}
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	g.outOff += int64(n)
	return n, nil
}

// States of the row lexer, which follows encoding/csv's rules (without
// LazyQuotes): a quote opens a quoted cell only as a cell's first byte;
// inside, "" is a quote and a quote ends the cell, which must then end.
const (
	csvCellStart = iota
	csvUnquoted
	csvQuoted
	csvAfterQuote // a quote in a quoted cell: its end, or the first of ""
	csvBroken     // a quote where the CSV reader will stop: the row ends at the line's end
)

// rowEnd returns how much of p belongs to the row and whether it ends there.
// The next comma, quote and newline are looked up once each and remembered,
// so a row costs a few IndexByte passes, not work per byte in Go.
func (g *csvGate) rowEnd(p []byte) (int, bool) {
	nc, nq, nn := -2, -2, -2 // offsets in p of the next comma, quote, newline; -1 none, -2 unknown
	next := func(cache *int, i int, b byte) int {
		if *cache != -1 && *cache < i {
			*cache = index(p, i, b)
		}
		return *cache
	}
	for i := 0; i < len(p); {
		switch g.state {
		case csvCellStart:
			if p[i] == '"' {
				g.state = csvQuoted
				i++
			} else {
				g.state = csvUnquoted
			}
		case csvUnquoted:
			c := -1
			if g.comma != 0 {
				c = next(&nc, i, g.comma)
			}
			q, n := next(&nq, i, '"'), next(&nn, i, '\n')
			switch {
			case n >= 0 && (c < 0 || n < c) && (q < 0 || n < q):
				g.state = csvCellStart
				return n + 1, true
			case c >= 0 && (q < 0 || c < q):
				g.state = csvCellStart
				i = c + 1
			case q >= 0:
				g.state = csvBroken
				i = q + 1
			default:
				return len(p), false
			}
		case csvQuoted:
			q := next(&nq, i, '"')
			if q < 0 {
				return len(p), false
			}
			g.state = csvAfterQuote
			i = q + 1
		case csvAfterQuote:
			switch b := p[i]; {
			case b == '"':
				g.state = csvQuoted
			case b == g.comma:
				g.state = csvCellStart
			case b == '\n':
				g.state = csvCellStart
				return i + 1, true
			case b == '\r':
				g.state = csvUnquoted // "\r\n" ends the row; anything else the CSV reader rejects
			default:
				g.state = csvBroken
			}
			i++
		default: // csvBroken
			n := next(&nn, i, '\n')
			if n < 0 {
				return len(p), false
			}
			g.state = csvCellStart
			return n + 1, true
		}
	}
	return len(p), false
}

func (g *csvGate) take(p []byte) {
	g.line += bytes.Count(p, []byte("\n"))
	if !g.over {
		if int64(len(g.held)+len(p)) <= g.limit+2 { // +2: the row's "\r\n"
			g.held = appendHeld(g.held, p, g.limit)
			return
		}
		g.startOver()
	}
	g.drop(p)
}

func (g *csvGate) startOver() {
	g.over, g.sizer = true, &csvSizer{comma: g.comma}
	g.drop(g.held)
	g.held = g.held[:0]
}

func (g *csvGate) drop(p []byte) {
	g.sizer.write(p)
	g.dropped += bytes.Count(p, []byte("\n"))
}

func (g *csvGate) endRow() {
	g.started = false
	if !g.over && int64(len(bytes.TrimRight(g.held, "\r\n"))) > g.limit {
		g.startOver()
	}
	if !g.over {
		g.out = g.held
		return
	}
	o := oversized{line: g.startLine, truncated: g.state == csvQuoted}
	o.size, o.column, o.partSize = g.sizer.finish()
	g.out = []byte("-\n")
	g.standIn(g.outOff+int64(len(g.out)), o, g.dropped-1)
	g.sizer = nil
}

// csvSizer measures the cells of a row that is over the limit as it
// streams by, to tell which column holds most of it.
type csvSizer struct {
	comma     byte
	inQuote   bool
	pos       int64 // bytes so far
	cellStart int64
	cell      int
	best      int
	bestSize  int64
	tail      []byte // the last two bytes, to leave out the row's "\r\n"
}

func (z *csvSizer) write(p []byte) {
	base := z.pos
	z.pos += int64(len(p))
	z.tail = append(z.tail, p[max(len(p)-2, 0):]...)
	if n := len(z.tail); n > 2 {
		z.tail = append(z.tail[:0], z.tail[n-2:]...)
	}
	comma, quote := -2, -2 // cached offsets in p; -1 none
	for i := 0; i < len(p); {
		if z.inQuote {
			j := bytes.IndexByte(p[i:], '"')
			if j < 0 {
				return
			}
			i += j + 1
			z.inQuote = false
			continue
		}
		if comma != -1 && comma < i {
			comma = index(p, i, z.comma)
		}
		if quote != -1 && quote < i {
			quote = index(p, i, '"')
		}
		switch {
		case quote >= 0 && (comma < 0 || quote < comma):
			i = quote + 1
			z.inQuote = true
		case comma >= 0:
			z.endCell(base + int64(comma))
			i = comma + 1
		default:
			return
		}
	}
}

func index(p []byte, from int, b byte) int {
	if k := bytes.IndexByte(p[from:], b); k >= 0 {
		return from + k
	}
	return -1
}

func (z *csvSizer) endCell(at int64) {
	if size := at - z.cellStart; size > z.bestSize {
		z.best, z.bestSize = z.cell, size
	}
	z.cell++
	z.cellStart = at + 1
}

// finish returns the row's size without its line end, and its largest cell.
func (z *csvSizer) finish() (size int64, cell int, cellSize int64) {
	size = z.pos
	t := z.tail
	if n := len(t); n > 0 && t[n-1] == '\n' {
		size--
		if n > 1 && t[n-2] == '\r' {
			size--
		}
	}
	z.endCell(size)
	return size, z.best, z.bestSize
}
