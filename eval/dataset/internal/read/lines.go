package read

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// EachLine gives each non-blank line of JSON Lines to each, trimmed, with
// its number; a line over the record limit is refused (or skipped) as too
// big without being held.
func (c *Collector) EachLine(br *bufio.Reader, each func(line int, b []byte) error) error {
	r := &LineReader{BR: br, Limit: c.Limit, Sizer: func() Sizer { return &RecordSizer{} }}
	for {
		b, line, o, err := r.Next()
		c.Unit = UnitLine
		switch {
		case err != nil:
			return fmt.Errorf("%s: %w", c.Name, err)
		case o != nil:
			err = c.TooBigRecord(line, *o)
		case b == nil:
			return nil
		default:
			if t := TrimLine(b); len(t) > 0 {
				err = each(line, t)
			}
		}
		if err != nil {
			return err
		}
	}
}

// LineReader cuts a file into records that end at a line end (after an even
// number of quotes, when Quoted: CSV), holding at most the record limit; a
// larger one is measured by Sizer as it streams by, unless Cut ends it
// early (CSV: a stray quote).
type LineReader struct {
	BR     *bufio.Reader
	Limit  int64
	Quoted bool
	Sizer  func() Sizer
	Cut    func(held, piece []byte) []byte
	line   int // lines read
	buf    []byte
}

// Sizer follows a record over the limit as it streams by, to name the
// part (a JSON key, a CSV column) that holds most of it.
type Sizer interface {
	Write(p []byte)
	Finish(o *Oversized)
}

// Next returns the next record with its line end and the line it starts
// on, or o for a record over the limit; b and o are nil at the end of the
// file.
func (r *LineReader) Next() (b []byte, start int, o *Oversized, err error) {
	start = r.line + 1
	if cap(r.buf) > 4<<20 {
		r.buf = nil // one long record does not pin its buffer for the rest of the file
	}
	r.buf = r.buf[:0]
	quotes, size, trail := 0, int64(0), 0
	var z Sizer
	for {
		piece, err := r.BR.ReadSlice('\n')
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, 0, nil, err
		}
		if r.Quoted {
			quotes += bytes.Count(piece, []byte{'"'})
		}
		if len(piece) > 0 {
			trail = len(piece) - len(bytes.TrimRight(piece, "\r\n")) // the line end, left out
		}
		if z == nil && int64(len(r.buf)+len(piece)) > r.Limit+2 { // +2: the line end
			if r.Cut != nil {
				if b := r.Cut(r.buf, piece); b != nil {
					return b, start, nil, nil
				}
			}
			z, size = r.Sizer(), int64(len(r.buf))
			z.Write(r.buf)
		}
		ends := (err == nil && quotes%2 == 0) || err == io.EOF
		if z != nil {
			if ends {
				z.Write(bytes.TrimRight(piece, "\r\n"))
			} else {
				z.Write(piece)
			}
			size += int64(len(piece))
		} else {
			r.buf = AppendHeld(r.buf, piece, r.Limit)
		}
		if err == nil {
			r.line++
		}
		if ends {
			break
		}
	}
	if z == nil && int64(len(bytes.TrimRight(r.buf, "\r\n"))) > r.Limit {
		z, size = r.Sizer(), int64(len(r.buf))
		z.Write(r.buf)
	}
	if z != nil {
		o := Oversized{Size: size - int64(trail), Line: start, truncated: quotes%2 == 1}
		z.Finish(&o)
		return nil, start, &o, nil
	}
	if len(r.buf) == 0 {
		return nil, start, nil, nil
	}
	return r.buf, start, nil, nil
}
