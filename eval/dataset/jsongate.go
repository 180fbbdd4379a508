package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonGate sits between the file and the JSON decoder, which holds a value
// whole while it decodes it, and keeps any value larger than the limit from
// reaching it. The values it watches are the array elements (the records,
// in the top-level array or the "samples" list, and the entries of any
// other list of a top-level object: the per-sample values of a
// column-oriented object) and the keys and other values of a top-level
// object. Each is held back until it ends; one over
// the limit is measured and dropped as it streams by. An element is then
// replaced by {}, which readElements recognises by its offset and reports
// as a record too big; anything else ends the read with an error. Outside
// these values bytes pass straight through. The gate follows strings and
// nesting only; syntax is the decoder's business, so a value going over the
// limit with a syntax error near its start (which may be what makes it run
// on) is let through for the decoder to report, as without the limit.
type jsonGate struct {
	src   io.Reader
	c     *collector
	limit int64

	buf    []byte // read from src
	in     []byte // unprocessed part of buf
	srcErr error  // src's error, once in is used up
	out    []byte // ready for the decoder
	outOff int64  // bytes handed to the decoder
	fail   error  // ends the read
	// passthrough: a broken value was let through; the decoder stops at it.
	passthrough bool
	line        int // newlines passed in src before in

	// Where we are between values: depth of nesting (1 inside the
	// top-level array or object, 2 inside the "samples" list); in the top
	// object, whether a key comes next, whether the last key was "samples",
	// whether that list was met.
	depth       int
	top         byte
	expectKey   bool
	keySamples  bool
	samplesSeen bool

	// The value being held: its kind (gElement, ...), first byte,
	// nesting, string state; held bytes; once over the limit, its size,
	// its line and a sizer instead.
	unit       int
	first      byte
	udepth     int
	inStr, esc bool
	held       []byte
	over       bool
	size       int64
	startLine  int
	sizer      *recordSizer
	dropped    int // newlines of the dropped value

	// The {} put in place of dropped elements.
	standIns
}

const (
	gNone = iota
	gElement
	gKey
	gValue
	gTop
)

func newJSONGate(c *collector, src io.Reader) *jsonGate {
	return &jsonGate{src: src, c: c, limit: c.limit, buf: make([]byte, 64<<10)}
}

func (g *jsonGate) Read(p []byte) (int, error) {
	for len(g.out) == 0 {
		if g.fail != nil {
			return 0, g.fail
		}
		if g.passthrough && len(g.in) > 0 {
			g.out, g.in = g.in, nil
			break
		}
		if len(g.in) == 0 {
			if g.srcErr != nil {
				if g.unit != gNone {
					g.endUnit(true) // the file ends inside a value: the decoder says so
					continue
				}
				return 0, g.srcErr
			}
			n, err := g.src.Read(g.buf)
			g.in, g.srcErr = g.buf[:n], err
			continue
		}
		if g.unit == gNone {
			g.between()
		} else {
			g.within()
		}
	}
	n := copy(p, g.out)
	g.out = g.out[n:]
	g.outOff += int64(n)
	return n, nil
}

// between passes the bytes before the next watched value through.
func (g *jsonGate) between() {
	i := 0
	for ; i < len(g.in) && g.unit == gNone; i++ {
		b := g.in[i]
		if b == ' ' || b == '\t' || b == '\r' || b == '\n' {
			continue
		}
		switch {
		case g.depth == 0 && (b == '[' || b == '{') && g.top == 0:
			g.top, g.depth, g.expectKey = b, 1, b == '{'
		case g.depth == 0:
			g.start(gTop, i)
		case g.depth == 2 || g.top == '[':
			// In the records' list.
			switch b {
			case ',':
			case ']':
				g.depth--
			default:
				g.start(gElement, i)
			}
		default:
			// In the top-level object.
			switch {
			case b == ',':
				g.expectKey = true
			case b == ':':
			case b == '}':
				g.depth--
			case g.expectKey && b == '"':
				g.start(gKey, i)
			case !g.expectKey && b == '[':
				// "samples" or a list of a column-oriented object: its
				// entries are gated one by one, like records.
				g.samplesSeen, g.depth = g.samplesSeen || g.keySamples, 2
			default:
				g.start(gValue, i)
			}
		}
	}
	if g.unit != gNone {
		i-- // the value's first byte stays in in
	}
	g.line += bytes.Count(g.in[:i], []byte("\n"))
	g.out, g.in = g.in[:i], g.in[i:]
}

func (g *jsonGate) start(kind, i int) {
	g.unit, g.first, g.udepth, g.inStr, g.esc = kind, g.in[i], 0, false, false
	g.held, g.over, g.size, g.dropped, g.sizer = g.held[:0], false, 0, 0, nil
	g.startLine = 1 + g.line + bytes.Count(g.in[:i], []byte("\n"))
	if kind == gKey {
		g.expectKey = false
	}
}

// within reads the held value on, to its end or the end of in.
func (g *jsonGate) within() {
	n, done := g.valueEnd(g.in)
	if !g.over && int64(len(g.held)+n) > g.limit && brokenPrefix(g.held, g.in[:n]) {
		// A value that is already broken is the decoder's to report, with
		// its line, as it would be if it were small: let it all through.
		g.out, g.unit, g.passthrough = g.held, gNone, true
		return
	}
	g.take(g.in[:n])
	g.in = g.in[n:]
	if done {
		g.endUnit(false)
	}
}

// valueEnd returns how much of p belongs to the value and whether it ends there.
func (g *jsonGate) valueEnd(p []byte) (int, bool) {
	switch g.first {
	case '"':
		if g.udepth == 0 { // the opening quote
			g.udepth, g.inStr = 1, true
			if len(p) == 1 {
				return 1, false
			}
			n := stringEnd(p[1:], &g.esc)
			if n < 0 {
				return len(p), false
			}
			return 1 + n, true
		}
		n := stringEnd(p, &g.esc)
		if n < 0 {
			return len(p), false
		}
		return n, true
	case '{', '[':
		for i := 0; i < len(p); i++ {
			if g.inStr {
				n := stringEnd(p[i:], &g.esc)
				if n < 0 {
					return len(p), false
				}
				g.inStr = false
				i += n - 1
				continue
			}
			switch p[i] {
			case '"':
				g.inStr = true
			case '{', '[':
				g.udepth++
			case '}', ']':
				if g.udepth--; g.udepth == 0 {
					return i + 1, true
				}
			}
		}
		return len(p), false
	}
	// A number, a literal or junk: up to the next delimiter. Its first
	// byte is taken whatever it is, so that a value always moves on.
	i := 0
	if g.udepth == 0 {
		g.udepth, i = 1, 1
	}
	for ; i < len(p); i++ {
		switch p[i] {
		case ' ', '\t', '\r', '\n', ',', ':', ']', '}', '[', '{', '"':
			return i, true
		}
	}
	return len(p), false
}

// take adds bytes of the held value, dropping it once it is over the limit.
func (g *jsonGate) take(p []byte) {
	g.line += bytes.Count(p, []byte("\n"))
	if !g.over {
		if int64(len(g.held)+len(p)) <= g.limit {
			g.held = appendHeld(g.held, p, g.limit)
			return
		}
		g.over, g.sizer = true, &recordSizer{}
		g.drop(g.held)
		g.held = g.held[:0]
	}
	g.drop(p)
}

func (g *jsonGate) drop(p []byte) {
	g.sizer.write(p)
	g.size += int64(len(p))
	g.dropped += bytes.Count(p, []byte("\n"))
}

// checkPrefix is how much of a value going over the limit brokenPrefix
// has the decoder look at.
const checkPrefix = 1 << 20

// brokenPrefix reports whether a value going over the limit, held then p,
// has a syntax error in its first checkPrefix bytes. Syntax errors usually
// show early in a value that runs long because of them (a quote or a
// brace too many throws the gate's count off); a later one goes unseen and
// the value is refused as too big.
func brokenPrefix(held, p []byte) bool {
	prefix := held[:min(len(held), checkPrefix)]
	if len(prefix) < checkPrefix {
		prefix = append(prefix[:len(prefix):len(prefix)], p[:min(len(p), checkPrefix-len(prefix))]...)
	}
	var raw json.RawMessage
	var se *json.SyntaxError
	return errors.As(json.NewDecoder(bytes.NewReader(prefix)).Decode(&raw), &se)
}

// endUnit lets the held value through, or stands in for a dropped one;
// atEOF says the file ended inside the value.
func (g *jsonGate) endUnit(atEOF bool) {
	kind := g.unit
	g.unit = gNone
	if !g.over {
		g.out = g.held
		if kind == gKey {
			var key string
			g.keySamples = json.Unmarshal(g.held, &key) == nil && key == "samples"
		}
		return
	}
	o := oversized{size: g.size, line: g.startLine, truncated: atEOF}
	o.part, o.partSize = g.sizer.largest()
	switch {
	case atEOF && kind != gElement:
		g.fail = truncatedJSON(g.c, 0)
	case kind == gElement:
		g.out = []byte("{}")
		g.standIn(g.outOff+int64(len(g.out)), o, g.dropped)
	case kind == gKey:
		g.fail = &Error{File: g.c.name, Msg: fmt.Sprintf("a key of the top-level object, at line %d, is %d bytes (%s), over the limit of %s per record — "+
			"is this a dataset? Raise the limit with --max-record-bytes", o.line, o.size, fmtSize(o.size), fmtSize(g.limit))}
	default:
		g.fail = &Error{File: g.c.name, Msg: fmt.Sprintf("the JSON value at line %d is %d bytes (%s), over the limit of %s per record — "+
			"expected an array of sample objects or {\"samples\": [...]}; raise the limit with --max-record-bytes", o.line, o.size, fmtSize(o.size), fmtSize(g.limit))}
	}
	g.sizer = nil
}
