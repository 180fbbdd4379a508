// Package summary reads, from a stored result's JSON, what a table of
// results shows; the rest (contexts, reference, traces) is skipped over
// rather than decoded, so that a million rows fill in seconds.
package summary

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/ragscope/ragscope/eval"
)

// Decoder decodes stored results' summary fields (those a table row shows,
// searches, diagnoses and counts) into one reused eval.Result, and leaves
// the others empty: the common fields by hand, the rarer ones through
// encoding/json, so that they read exactly as a whole result does.
type Decoder struct {
	res    eval.Result
	scores map[eval.Metric]*float64 // res's, kept when a result has none
	status map[eval.Metric]eval.Status
	floats []float64
	// names interns the metric and status names: a million rows share a
	// handful of them.
	names map[string]string
	seen  [64]string
}

// maxSummaryNames bounds the interned names (a hostile store could name
// a new metric in every result).
const maxSummaryNames = 1024

func (d *Decoder) Decode(v []byte) (*eval.Result, error) {
	if d.scores == nil {
		d.scores, d.status = map[eval.Metric]*float64{}, map[eval.Metric]eval.Status{}
	}
	scores, status := d.scores, d.status
	clear(scores)
	clear(status)
	d.res = eval.Result{Scores: scores, Status: status}
	d.floats = d.floats[:0]
	// Absent or null, a map stays nil, as encoding/json leaves it; a
	// null after an object drops what the object held.
	var hasScores, hasStatus bool
	s := scanner{b: v}
	err := s.object(func(key []byte) error {
		switch string(key) {
		case "index":
			return s.int(&d.res.Index)
		case "turn":
			return s.int(&d.res.Turn)
		case "id":
			return s.view(&d.res.ID)
		case "question":
			return s.view(&d.res.Question)
		case "answer":
			return s.view(&d.res.Answer)
		case "conversation_id":
			return s.str(&d.res.ConversationID)
		case "scores":
			if hasScores = !s.null(); !hasScores {
				clear(scores)
				return nil
			}
			return s.object(func(k []byte) error {
				m := eval.Metric(d.name(k))
				if s.null() {
					scores[m] = nil
					return nil
				}
				var f float64
				if err := num(&s, &f, parseFloat); err != nil {
					return err
				}
				if len(d.floats) == cap(d.floats) {
					// A new array: the scores of this result point into the old.
					d.floats = make([]float64, 0, max(2*cap(d.floats), 16))
				}
				d.floats = append(d.floats, f)
				scores[m] = &d.floats[len(d.floats)-1]
				return nil
			})
		case "status":
			if hasStatus = !s.null(); !hasStatus {
				clear(status)
				return nil
			}
			return s.object(func(k []byte) error {
				m := eval.Metric(d.name(k))
				if s.null() {
					status[m] = ""
					return nil
				}
				st, err := s.unquoted()
				status[m] = eval.Status(d.name(st))
				return err
			})
		case "errors":
			// Rare (a failed metric): encoding/json's own decoding.
			return s.decodeJSON(&d.res.Errors)
		case "answer_relevancy":
			return s.decodeJSON(&d.res.AnswerRelevancy)
		case "answer_correctness":
			return s.decodeJSON(&d.res.AnswerCorrectness)
		case "factual_correctness":
			return s.decodeJSON(&d.res.FactualCorrectness)
		case "criteria":
			return s.decodeJSON(&d.res.Criteria)
		case "calls":
			return s.decodeJSON(&d.res.Calls)
		}
		return s.skip()
	})
	if err != nil {
		return nil, err
	}
	if s.ws(); s.i != len(s.b) {
		return nil, fmt.Errorf("invalid character %q after the result", s.b[s.i])
	}
	if !hasScores {
		d.res.Scores = nil
	}
	if !hasStatus {
		d.res.Status = nil
	}
	return &d.res, nil
}

// name is b as an interned string.
func (d *Decoder) name(b []byte) string {
	// A cache in front of the map: the same few names come in every
	// result, and comparing one is cheaper than hashing it.
	slot := 0
	if len(b) > 0 {
		slot = (len(b) + int(b[0]) + int(b[len(b)-1])) % len(d.seen)
	}
	if d.seen[slot] == string(b) {
		return d.seen[slot]
	}
	if n, ok := d.names[string(b)]; ok {
		d.seen[slot] = n
		return n
	}
	n := string(b)
	if d.names == nil {
		d.names = map[string]string{}
	}
	if len(d.names) < maxSummaryNames {
		d.names[n] = n
	}
	return n
}

// scanner reads one JSON value, a token at a time, as encoding/json
// would accept it.
type scanner struct {
	b     []byte
	i     int
	depth int // of the objects and arrays open
}

// maxDepth is encoding/json's bound on nesting: a value nested deeper is
// an error, not a stack that grows without end.
const maxDepth = 10000

func (s *scanner) enter() error {
	if s.depth++; s.depth > maxDepth {
		return errors.New("exceeded max depth")
	}
	return nil
}

var errEnd = errors.New("unexpected end of JSON input")

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek is the next byte that is not white space, 0 at the end.
func (s *scanner) peek() byte {
	if s.ws(); s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// null reads a null if one is next.
func (s *scanner) null() bool {
	if s.peek() == 'n' && len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

func (s *scanner) expect(c byte) error {
	switch p := s.peek(); {
	case p == c:
		s.i++
		return nil
	case s.i == len(s.b):
		return errEnd
	default:
		return fmt.Errorf("invalid character %q at offset %d, want %q", p, s.i, c)
	}
}

// object reads an object, calling member with each key (its raw bytes,
// valid until the next read) to read the value after it.
func (s *scanner) object(member func(key []byte) error) error {
	if err := s.expect('{'); err != nil {
		return err
	}
	if err := s.enter(); err != nil {
		return err
	}
	if s.closes('}') {
		return nil
	}
	for {
		key, err := s.unquoted()
		if err != nil {
			return err
		}
		if err := s.expect(':'); err != nil {
			return err
		}
		if err := member(key); err != nil {
			return err
		}
		if end, err := s.sep('}', "an object member"); end || err != nil {
			return err
		}
	}
}

// sep reads what follows a member or an element: a comma before the next,
// or close, which ends the object or array.
func (s *scanner) sep(close byte, after string) (end bool, err error) {
	if s.closes(close) {
		return true, nil
	}
	switch p := s.peek(); {
	case p == ',':
		s.i++
		return false, nil
	case s.i == len(s.b):
		return false, errEnd
	default:
		return false, fmt.Errorf("invalid character %q after %s", p, after)
	}
}

// closes reads close if it comes next, which ends the object or array.
func (s *scanner) closes(close byte) bool {
	if s.peek() != close {
		return false
	}
	s.i++
	s.depth--
	return true
}

// rawString reads a string token, quotes included, and whether it has an
// escape or a byte that is not plain valid UTF-8.
func (s *scanner) rawString() (tok []byte, esc bool, err error) {
	if err := s.expect('"'); err != nil {
		return nil, false, err
	}
	start := s.i - 1
	ascii := true
	for s.i < len(s.b) {
		// Most of a text is plain: skip it a byte at a time with one look.
		for s.i < len(s.b) && !strSpecial[s.b[s.i]] {
			s.i++
		}
		if s.i == len(s.b) {
			break
		}
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			tok = s.b[start:s.i]
			return tok, esc || (!ascii && !utf8.Valid(tok)), nil
		case c == '\\':
			esc = true
			s.i++
			if s.i == len(s.b) {
				return nil, false, errEnd
			}
			if s.b[s.i] == 'u' {
				if len(s.b)-s.i < 5 {
					return nil, false, errEnd
				}
				for _, h := range s.b[s.i+1 : s.i+5] {
					if !isHex(h) {
						return nil, false, fmt.Errorf("invalid character %q in \\u escape", h)
					}
				}
				s.i += 4
			} else if !isEscape(s.b[s.i]) {
				return nil, false, fmt.Errorf("invalid escape character %q in string", s.b[s.i])
			}
		case c < 0x20:
			return nil, false, fmt.Errorf("invalid control character %q in string", c)
		default: // c >= utf8.RuneSelf
			ascii = false
		}
		s.i++
	}
	return nil, false, errEnd
}

// unquoted reads a string and gives its text: the bytes between its
// quotes, or, when it has escapes, what encoding/json makes of it.
func (s *scanner) unquoted() ([]byte, error) {
	tok, esc, err := s.rawString()
	switch {
	case err != nil:
		return nil, err
	case esc:
		var t string
		err := json.Unmarshal(tok, &t)
		return []byte(t), err
	}
	return tok[1 : len(tok)-1], nil
}

// strSpecial marks the bytes a string's scan stops at: its end, an
// escape, a control character (an error), a byte past ASCII (the string
// is then checked for valid UTF-8).
var strSpecial = func() (t [256]bool) {
	for c := range t {
		t[c] = c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf
	}
	return t
}()

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isEscape(c byte) bool { return strings.IndexByte(`"\/bfnrt`, c) >= 0 }

// str reads a string into *v; null leaves it as it is (as encoding/json
// does). Escapes and invalid UTF-8 are left to encoding/json.
func (s *scanner) str(v *string) error { return s.text(v, false) }

// view is str for a text fn only reads: a plain one is the stored bytes
// themselves, not a copy that would be garbage.
func (s *scanner) view(v *string) error { return s.text(v, true) }

// text is str, or view when borrow is set.
func (s *scanner) text(v *string, borrow bool) error {
	if s.null() {
		return nil
	}
	if s.peek() != '"' {
		return s.decodeJSON(v) // its error names what is there instead
	}
	tok, esc, err := s.rawString()
	switch {
	case err != nil:
		return err
	case esc:
		return json.Unmarshal(tok, v)
	case borrow:
		*v = unsafe.String(unsafe.SliceData(tok[1:]), len(tok)-2)
	default:
		*v = string(tok[1 : len(tok)-1])
	}
	return nil
}

// number reads a number token: the bytes a number may hold, which no
// valid value has right after one, checked by encoding/json.
func (s *scanner) number() ([]byte, error) {
	s.ws()
	start := s.i
	for s.i < len(s.b) && strings.IndexByte("+-.eE0123456789", s.b[s.i]) >= 0 {
		s.i++
	}
	if tok := s.b[start:s.i]; json.Valid(tok) {
		return tok, nil
	}
	return nil, s.badNumber(start)
}

func (s *scanner) badNumber(start int) error {
	if s.i == len(s.b) {
		return errEnd
	}
	return fmt.Errorf("invalid number at offset %d", start)
}

// int reads a number into *v; null leaves it.
func (s *scanner) int(v *int) error {
	if s.null() {
		return nil
	}
	return num(s, v, strconv.Atoi)
}

func parseFloat(t string) (float64, error) { return strconv.ParseFloat(t, 64) }

// num reads a number into *v with parse; anything else (a fraction for an
// int, a string) is left to encoding/json's error.
func num[T int | float64](s *scanner, v *T, parse func(string) (T, error)) error {
	if c := s.peek(); c != '-' && (c < '0' || c > '9') {
		return s.decodeJSON(v)
	}
	tok, err := s.number()
	if err != nil {
		return err
	}
	n, err := parse(string(tok))
	if err != nil {
		return json.Unmarshal(tok, v)
	}
	*v = n
	return nil
}

// decodeJSON reads the next value with encoding/json into v.
func (s *scanner) decodeJSON(v any) error {
	s.ws()
	start := s.i
	if err := s.skip(); err != nil {
		return err
	}
	return json.Unmarshal(s.b[start:s.i], v)
}

// skip reads over a value, checking its syntax.
func (s *scanner) skip() error {
	switch c := s.peek(); {
	case c == '{':
		return s.object(func([]byte) error { return s.skip() })
	case c == '[':
		s.i++
		if err := s.enter(); err != nil {
			return err
		}
		if s.closes(']') {
			return nil
		}
		for {
			if err := s.skip(); err != nil {
				return err
			}
			if end, err := s.sep(']', "an array element"); end || err != nil {
				return err
			}
		}
	case c == '"':
		_, _, err := s.rawString()
		return err
	case c == '-' || '0' <= c && c <= '9':
		_, err := s.number()
		return err
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				return nil
			}
		}
		return fmt.Errorf("invalid literal at offset %d", s.i)
	case s.i == len(s.b):
		return errEnd
	default:
		return fmt.Errorf("invalid character %q looking for a value", c)
	}
}
