package read

import (
	"bytes"
	"fmt"
	"strings"
)

// AppendHeld appends p to a record being held, doubling the buffer (append
// grows large slices by a quarter, allocating some five times the record)
// but never past limit+slack.
func AppendHeld(buf, p []byte, limit int64) []byte {
	if need := len(buf) + len(p); need > cap(buf) {
		n := max(2*cap(buf), need, 4<<10)
		if int64(n) > limit+2 {
			n = max(need, int(limit+2))
		}
		nb := make([]byte, len(buf), n)
		copy(nb, buf)
		buf = nb
	}
	return append(buf, p...)
}

// CheckPrefix is how much of a value going over the limit a reader
// checks for a syntax error (a JSON value, a CSV row).
const CheckPrefix = 1 << 20

// Prefix is the first CheckPrefix bytes of held then p, without writing
// into held's spare capacity.
func Prefix(held, p []byte) []byte {
	prefix := append(held[:len(held):len(held)], p[:min(len(p), max(CheckPrefix-len(held), 0))]...)
	return prefix[:min(len(prefix), CheckPrefix)]
}

// FmtSize spells a byte count the way the limit is usually given.
func FmtSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// Oversized describes a record over the limit, measured as it was dropped.
type Oversized struct {
	Size int64
	// Line is the file line the record starts on (JSON elements, CSV rows).
	Line int
	// Part names the largest value in the record (a JSON key path such as
	// "vars.context", or a CSV column) and PartSize its size.
	Part     string
	PartSize int64
	Column   int // the index of Part among the record's parts (a CSV column)
	// truncated: the file ended inside the record (JSON), or inside a
	// quoted cell of it (CSV).
	truncated bool
}

// Tally adds part i of a record, named name and n bytes long, to the
// record's size, keeping its largest part.
func (o *Oversized) Tally(i int, name string, n int64) {
	o.Size += n
	if n > o.PartSize {
		o.Column, o.Part, o.PartSize = i, name, n
	}
}

// TooBigRecord is Bad for a JSON record over the limit, blamed on our field
// its largest value feeds ("" if none).
func (c *Collector) TooBigRecord(line int, o Oversized) error {
	return c.Bad(line, c.fieldOfKey(o.Part), c.TooBig(o, "key"))
}

// TooBig is the message for a record over the limit; partKind says what
// o.part is ("key", "column").
func (c *Collector) TooBig(o Oversized, partKind string) string {
	what, detail := "the record", ""
	if o.Part != "" {
		detail = fmt.Sprintf("; %s %q holds %s", partKind, o.Part, FmtSize(o.PartSize))
	}
	if o.Line > 0 && c.Unit != UnitLine {
		what = fmt.Sprintf("the record starting at line %d", o.Line)
		if o.truncated && c.Unit == UnitRow {
			detail += "; it runs to the end of the file inside a quoted cell — is a closing quote missing?"
		}
	}
	return fmt.Sprintf("%s is %d bytes (%s%s), over the limit of %s per record — "+
		"raise the limit with --max-record-bytes", what, o.Size, FmtSize(o.Size), detail, FmtSize(c.Limit))
}

// fieldOfKey is our field read from a JSON key path ("response",
// "vars.query"), or "".
func (c *Collector) fieldOfKey(path string) string {
	// The key path as given, then its first key (a nested value of a
	// field's object), each at the top level and under "vars"; "" (no
	// part named) matches none, as no name is empty.
	head, _, _ := strings.Cut(path, ".")
	for _, p := range []string{path, head} {
		for f := range NFields {
			for _, name := range c.Cols.Names[f] {
				if strings.EqualFold(p, name) || strings.EqualFold(p, "vars."+name) {
					return FieldNames[f]
				}
			}
		}
	}
	return ""
}

// stringEnd returns the offset just past the closing quote of the JSON
// string p continues, or -1 when p ends inside it; *esc carries an unpaired
// backslash from piece to piece. bytes.IndexByte spares long strings
// per-byte work.
func stringEnd(p []byte, esc *bool) int {
	i := 0
	if *esc {
		if len(p) == 0 {
			return -1
		}
		*esc = false
		i = 1
	}
	for {
		// q is the next quote, or the end of p; an odd run of backslashes
		// before it escapes it.
		j := bytes.IndexByte(p[i:], '"')
		q := len(p)
		if j >= 0 {
			q = i + j
		}
		k := q
		for k > i && p[k-1] == '\\' {
			k--
		}
		escaped := (q-k)%2 == 1
		if j < 0 {
			*esc = escaped
			return -1
		}
		if !escaped {
			return q + 1
		}
		i = q + 1
	}
}

// RecordSizer follows a JSON value as it streams by, to tell where it ends
// (Scan) and, for a record over the limit, which key holds most of it: the
// top-level object's largest value and, when that is an object
// (promptfoo's "vars"), its largest value.
type RecordSizer struct {
	pos        int64 // bytes written so far
	depth      int
	inStr, esc bool
	// Per depth 1 and 2: the container is an object, a key comes next, a
	// value is being read; the current key and where its value starts.
	isObj, expectKey, inValue [3]bool
	key                       [3][]byte
	start                     [3]int64
	inKey                     int // depth of the key string being read, 0 if none
	// The largest child of the current depth-1 value; the largest depth-1
	// value with its largest child.
	child, best, bestChild         string
	childSize, bestSize, bestCSize int64
}

const maxKeyShown = 200

func (z *RecordSizer) Write(p []byte) { z.scan(p, false) }

// Scan follows a value that is a string, an object or an array, from its
// first byte on, and returns how much of p belongs to it and whether it
// ends there: at its closing quote or bracket.
func (z *RecordSizer) Scan(p []byte) (int, bool) {
	if n := z.scan(p, true); n >= 0 {
		return n, true
	}
	return len(p), false
}

// scan follows p and, with stop, returns the offset just past the end of
// the value its first byte started; -1 when p does not end it.
func (z *RecordSizer) scan(p []byte, stop bool) int {
	for i := 0; i < len(p); {
		if z.inStr {
			n := stringEnd(p[i:], &z.esc)
			run := n
			if n < 0 {
				run = len(p) - i
			}
			if z.inKey > 0 {
				k := z.inKey
				body := p[i : i+run]
				if n >= 0 {
					body = body[:n-1]
				}
				if room := maxKeyShown - len(z.key[k]); room > 0 {
					z.key[k] = append(z.key[k], body[:min(room, len(body))]...)
				}
			}
			z.pos += int64(run)
			if n < 0 {
				return -1
			}
			z.inStr, z.inKey = false, 0
			i += n
			if stop && z.depth == 0 {
				return i
			}
			continue
		}
		b := p[i]
		i++
		d := z.depth
		switch b {
		case '"':
			z.inStr = true
			if d >= 1 && d <= 2 && z.isObj[d] && z.expectKey[d] {
				z.inKey = d
				z.key[d] = z.key[d][:0]
			}
		case '{', '[':
			z.depth++
			if d := z.depth; d <= 2 {
				z.isObj[d], z.expectKey[d], z.inValue[d] = b == '{', b == '{', false
			}
		case '}', ']':
			if d >= 1 && d <= 2 {
				z.endValue(d)
			}
			if z.depth > 0 {
				z.depth--
			}
		case ':':
			if d >= 1 && d <= 2 && z.isObj[d] {
				z.expectKey[d], z.inValue[d], z.start[d] = false, true, z.pos
			}
		case ',':
			if d >= 1 && d <= 2 {
				z.endValue(d)
				z.expectKey[d] = z.isObj[d]
			}
		}
		z.pos++
		if stop && z.depth == 0 && (b == '}' || b == ']') {
			return i
		}
	}
	return -1
}

func (z *RecordSizer) endValue(d int) {
	if !z.inValue[d] {
		return
	}
	z.inValue[d] = false
	size := z.pos - z.start[d] // from the colon to the byte ending the value
	if d == 2 {
		if size > z.childSize {
			z.child, z.childSize = string(z.key[2]), size
		}
		return
	}
	if size > z.bestSize {
		z.best, z.bestSize, z.bestChild, z.bestCSize = string(z.key[1]), size, z.child, z.childSize
	}
	z.child, z.childSize = "", 0
}

func (z *RecordSizer) Finish(o *Oversized) { o.Part, o.PartSize = z.Largest() }

// Largest returns the key path holding most of the record and its size.
func (z *RecordSizer) Largest() (string, int64) {
	z.endValue(2)
	z.endValue(1)
	if z.best == "" {
		return "", 0
	}
	// A child holding most of its parent names the field better ("vars.context").
	if z.bestChild != "" && z.bestCSize*2 > z.bestSize {
		return z.best + "." + z.bestChild, z.bestCSize
	}
	return z.best, z.bestSize
}
