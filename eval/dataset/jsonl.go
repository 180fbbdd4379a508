package dataset

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// readJSONL reads one JSON object per line. Blank lines are ignored; a
// trailing \r (Windows line endings) is whitespace to the trimming. A line
// longer than the limit is never held whole: it is measured as it streams
// by and refused (or skipped) as too big.
func readJSONL(c *collector, br *bufio.Reader) error {
	return c.eachLine(br, c.fromJSON)
}

// eachLine gives each non-blank line of JSON Lines to each, trimmed, with
// its number; a line over the record limit is refused (or skipped) as too
// big without being held.
func (c *collector) eachLine(br *bufio.Reader, each func(line int, b []byte) error) error {
	r := &lines{br: br, limit: c.limit, sizer: func() sizer { return &recordSizer{} }}
	for {
		b, line, o, err := r.next()
		c.unit = unitLine
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", c.name, err)
		case o != nil:
			field, msg := c.tooBigField(*o)
			err = c.bad(line, field, msg)
		case b == nil:
			return nil
		default:
			if t := bytes.TrimSpace(b); len(t) > 0 {
				err = each(line, t)
			}
		}
		if err != nil {
			return err
		}
	}
}

// lines cuts a file into records that end at a line end, holding at most
// the record limit: JSON Lines lines, and CSV rows, which end at a line end
// after an even number of quotes in the row (quoted). A record over the
// limit is measured as it streams by, never held whole; cut, when set, may
// end one going over the limit early (CSV: a stray quote).
type lines struct {
	br     *bufio.Reader
	limit  int64
	quoted bool
	sizer  func() sizer
	cut    func(held, piece []byte) []byte
	line   int // lines read
	buf    []byte
}

// sizer follows a record over the limit as it streams by, to name the
// part (a JSON key, a CSV column) that holds most of it.
type sizer interface {
	write(p []byte)
	finish(o *oversized)
}

// next returns the next record with its line end and the line it starts
// on, or o for a record over the limit; b and o are nil at the end of the
// file.
func (r *lines) next() (b []byte, start int, o *oversized, err error) {
	start = r.line + 1
	if cap(r.buf) > 4<<20 {
		r.buf = nil // one long record does not pin its buffer for the rest of the file
	}
	r.buf = r.buf[:0]
	quotes, size, trail := 0, int64(0), 0
	var z sizer
	for {
		piece, err := r.br.ReadSlice('\n')
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, 0, nil, err
		}
		if r.quoted {
			quotes += bytes.Count(piece, []byte{'"'})
		}
		if len(piece) > 0 {
			trail = len(piece) - len(bytes.TrimRight(piece, "\r\n")) // the line end, left out
		}
		if z == nil && int64(len(r.buf)+len(piece)) > r.limit+2 { // +2: the line end
			if r.cut != nil {
				if b := r.cut(r.buf, piece); b != nil {
					return b, start, nil, nil
				}
			}
			z, size = r.sizer(), int64(len(r.buf))
			z.write(r.buf)
		}
		ends := (err == nil && quotes%2 == 0) || err == io.EOF
		if z != nil {
			if ends {
				z.write(bytes.TrimRight(piece, "\r\n"))
			} else {
				z.write(piece)
			}
			size += int64(len(piece))
		} else {
			r.buf = appendHeld(r.buf, piece, r.limit)
		}
		if err == nil {
			r.line++
		}
		if ends {
			break
		}
	}
	if z == nil && int64(len(bytes.TrimRight(r.buf, "\r\n"))) > r.limit {
		z, size = r.sizer(), int64(len(r.buf))
		z.write(r.buf)
	}
	if z != nil {
		o := oversized{size: size - int64(trail), line: start, truncated: quotes%2 == 1}
		z.finish(&o)
		return nil, start, &o, nil
	}
	if len(r.buf) == 0 {
		return nil, start, nil, nil
	}
	return r.buf, start, nil, nil
}
