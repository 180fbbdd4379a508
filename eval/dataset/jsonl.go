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
	var long []byte // a line longer than br's buffer, gathered
	for line := 1; ; line++ {
		b, err := br.ReadSlice('\n')
		over := false
		if err == bufio.ErrBufferFull {
			long = appendHeld(long[:0], b, c.limit)
			for err == bufio.ErrBufferFull && !over {
				b, err = br.ReadSlice('\n')
				// +2: the line's "\r\n" does not count.
				if over = int64(len(long)+len(b)) > c.limit+2; !over {
					long = appendHeld(long, b, c.limit)
				}
			}
			if !over {
				b = long
			}
		}
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		switch {
		case over:
			err = c.longLine(line, br, long, b, err)
		case int64(len(bytes.TrimRight(b, "\r\n"))) > c.limit:
			err = c.longLine(line, br, nil, b, err)
		default:
			if t := bytes.TrimSpace(b); len(t) > 0 {
				if err := c.fromJSON(line, t); err != nil {
					return err
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if cap(long) > 4<<20 && len(b) < 1<<20 {
			long = nil // one long line does not pin its buffer for the rest of the file
		}
	}
}

// longLine refuses a line over the limit: held is what was gathered of it,
// b the piece read last and err that read's error. The rest of the line is
// read and measured, not kept. It returns io.EOF when the line was the last,
// nil when it was skipped, or the error that ends the read.
func (c *collector) longLine(line int, br *bufio.Reader, held, b []byte, err error) error {
	z := &recordSizer{}
	size := int64(0)
	feed := func(p []byte, last bool) {
		if last {
			p = bytes.TrimRight(p, "\r\n")
		}
		z.write(p)
		size += int64(len(p))
	}
	feed(held, false)
	feed(b, err != bufio.ErrBufferFull)
	for err == bufio.ErrBufferFull {
		b, err = br.ReadSlice('\n')
		feed(b, err != bufio.ErrBufferFull)
	}
	if err != nil && err != io.EOF {
		return fmt.Errorf("%s: %w", c.name, err)
	}
	o := oversized{size: size}
	o.part, o.partSize = z.largest()
	field, msg := c.tooBigField(o)
	if berr := c.bad(line, field, msg); berr != nil {
		return berr
	}
	return err
}
