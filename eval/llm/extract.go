package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// Bounds of the search for the object in a reply. Whatever the reply holds,
// ExtractJSON reads it a bounded number of times: one scan for code fences,
// one for balanced braces plus at most maxRestarts partial ones, and gives
// json.Valid at most maxCandidates spans whose lengths add up to at most
// validateFactor×len(reply)+validateSlack bytes. Within these bounds the
// result is the one trying every '{' in turn would give; a real reply has
// its object first or second in line, and what needs more is not a judge's
// answer.
const (
	// maxCandidates is how many spans are checked with json.Valid.
	maxCandidates = 64
	// validateFactor and validateSlack bound the bytes given to json.Valid.
	validateFactor = 4
	validateSlack  = 64 << 10
	// maxRestarts is how many scans start again at a '{' that the other
	// scans saw only inside a string (prose with a stray quote before the
	// object, an object cut short and then repeated whole).
	maxRestarts = 8
	// maxRecorded caps the '{' one scan records, the spans kept and the
	// restart points kept, so that a reply of '{' repeated costs a counter
	// per byte rather than a slice entry.
	maxRecorded = 4096
	// ctxEvery is how many bytes are scanned between looks at the context.
	ctxEvery = 64 << 10
)

// ExtractJSON takes the JSON object out of a judge reply. Endpoints without
// JSON-schema support (--response-format json_object|text) often wrap it in
// a code fence or in prose; strict endpoints return it bare. The first
// complete, valid object wins: a fenced block first, then any balanced {...}
// in the order they start. It takes time linear in the reply's length
// whatever the reply holds (see the bounds above).
func ExtractJSON(content string) (string, error) {
	return ExtractJSONContext(context.Background(), content)
}

// ExtractJSONContext is ExtractJSON that gives up with the context's error
// when ctx is done.
func ExtractJSONContext(ctx context.Context, content string) (string, error) {
	obj, _, err := extract(ctx, content)
	return obj, err
}

// extract is ExtractJSONContext that also says whether a bound was hit, in
// which case an object found by trying every '{' might have been missed.
func extract(ctx context.Context, content string) (obj string, bounded bool, err error) {
	s := strings.TrimSpace(content)
	if s == "" {
		return "", false, errors.New("the reply is empty")
	}
	x := &extractor{ctx: ctx, s: s, budget: validateFactor*len(s) + validateSlack}
	if err := x.alive(); err != nil {
		return "", false, err
	}
	x.b = []byte(s)
	if s[0] == '{' && x.valid(0, len(s)) {
		return s, false, nil
	}
	if obj, ok, err := x.fenced(); ok || err != nil {
		return obj, x.bounded, err
	}
	if obj, ok, err := x.braces(); ok || err != nil {
		return obj, x.bounded, err
	}
	size := fmt.Sprintf("%d bytes", len(content))
	if x.exhausted {
		size += fmt.Sprintf("; gave up after checking %d candidate objects", x.tried)
	}
	if s[0] == '{' {
		return "", x.bounded, fmt.Errorf("the reply is not complete JSON (truncated?) (%s): %s", size, clip(s, 200))
	}
	return "", x.bounded, fmt.Errorf("no JSON object in the reply (%s): %s", size, clip(s, 200))
}

// extractor is the state of one extract call.
type extractor struct {
	ctx context.Context
	s   string
	b   []byte // s, converted once for json.Valid
	// budget is what is left of the bytes json.Valid may be given, tried
	// the spans checked; exhausted says these stopped the checking, bounded
	// that some bound was hit.
	budget    int
	tried     int
	exhausted bool
	bounded   bool
	// spans are the balanced {...} found; covered has a bit set for every
	// '{' some scan started a span at (so its span, or that it has none, is
	// known); pending are the '{' scans saw inside strings, where a scan of
	// their own may start.
	spans   []span
	covered []uint64
	pending []int
	// Per-scan scratch: opens[k] is the offset of the k-th recorded '{',
	// stack the recorded braces still open with the depth each opened at.
	opens []int
	stack []open
}

type span struct{ start, end int }

type open struct{ k, depth int }

func (x *extractor) alive() error {
	if err := x.ctx.Err(); err != nil {
		return fmt.Errorf("extracting the JSON object from a reply of %d bytes: %w", len(x.s), err)
	}
	return nil
}

// valid reports whether s[i:j] is valid JSON, within the bounds; a span the
// bounds do not allow is reported invalid and marks the search exhausted.
func (x *extractor) valid(i, j int) bool {
	if x.tried >= maxCandidates || j-i > x.budget {
		x.exhausted, x.bounded = true, true
		return false
	}
	x.tried++
	x.budget -= j - i
	return json.Valid(x.b[i:j])
}

// fenced returns the first Markdown code block whose body is a valid
// object. An info string (```json) on the opening line is skipped when that
// line holds no '{'. One pass: the positions of the next newline and the
// next '{' are remembered, so no byte is searched twice for either.
func (x *extractor) fenced() (string, bool, error) {
	s := x.s
	nextNL, nextBrace := -2, -2 // absolute offsets; -2 unknown, -1 none left
	next := func(cache *int, from int, c byte) int {
		if *cache == -1 || *cache >= from {
			return *cache
		}
		if k := strings.IndexByte(s[from:], c); k >= 0 {
			*cache = from + k
		} else {
			*cache = -1
		}
		return *cache
	}
	for pos, n := 0, 0; ; n++ {
		if n%1024 == 1023 {
			if err := x.alive(); err != nil {
				return "", false, err
			}
		}
		i := strings.Index(s[pos:], "```")
		if i < 0 {
			return "", false, nil
		}
		body := pos + i + 3
		if nl := next(&nextNL, body, '\n'); nl >= 0 {
			if br := next(&nextBrace, body, '{'); br < 0 || br > nl {
				body = nl + 1
			}
		}
		end := strings.Index(s[body:], "```")
		if end < 0 {
			return "", false, nil
		}
		end += body
		// The block's body without surrounding whitespace.
		seg := s[body:end]
		left := strings.TrimLeftFunc(seg, unicode.IsSpace)
		i = body + len(seg) - len(left)
		j := i + len(strings.TrimRightFunc(left, unicode.IsSpace))
		if i < j && s[i] == '{' && x.valid(i, j) {
			return s[i:j], true, nil
		}
		pos = end + 3
	}
}

// braces returns the first balanced {...} span that is valid JSON, trying
// spans in the order they start, as matching braces from every '{' in turn
// would, but reading the reply about once:
//
// A scan from a '{' follows strings and escapes to the '}' that closes it
// and records every '{' it meets outside a string with where that one
// closes: a scan started at it would find the same. The main pass scans
// from the first '{', then from the next '{' after where that closed, and
// so on, without looking for strings in the prose between (a quote in
// `the model's "answer" is {...}` must not hide the object). A '{' that the
// scans meet only inside strings would start a scan of a different phase;
// up to maxRestarts of them, first first, get a scan of their own.
func (x *extractor) braces() (string, bool, error) {
	s := x.s
	x.covered = make([]uint64, len(s)/64+1)
	for pos := 0; pos < len(s); {
		i := strings.IndexByte(s[pos:], '{')
		if i < 0 {
			break
		}
		end, err := x.scan(pos + i)
		if err != nil {
			return "", false, err
		}
		if end == 0 {
			break // the rest was scanned, nothing closes the first brace
		}
		pos = end
	}
	for r, last := 0, -1; ; r++ {
		b := x.nextPending(last)
		if b < 0 {
			break
		}
		if r == maxRestarts {
			x.bounded = true
			break
		}
		if _, err := x.scan(b); err != nil {
			return "", false, err
		}
		last = b
	}
	slices.SortFunc(x.spans, func(a, b span) int { return a.start - b.start })
	for k, sp := range x.spans {
		if k > 0 && sp.start == x.spans[k-1].start {
			continue // found by two scans: the same span
		}
		if x.tried >= maxCandidates {
			x.exhausted, x.bounded = true, true
			break
		}
		if x.valid(sp.start, sp.end) {
			return s[sp.start:sp.end], true, nil
		}
	}
	return "", false, nil
}

// nextPending returns the first restart point after last that no scan has
// covered, or -1. Every pending point before last is covered already: last
// was the first uncovered one, and later scans only add points after it.
func (x *extractor) nextPending(last int) int {
	slices.Sort(x.pending)
	for _, p := range x.pending {
		if p > last && x.covered[p/64]&(1<<(p%64)) == 0 {
			return p
		}
	}
	return -1
}

// scan follows s from the '{' at start to the '}' that closes it, adding the
// spans of the recorded braces to x.spans and the '{' seen inside strings to
// x.pending. It returns the offset just past that '}', or 0 if the reply
// ends first.
func (x *extractor) scan(start int) (int, error) {
	s := x.s
	x.opens, x.stack = x.opens[:0], x.stack[:0]
	inStr, esc, depth := false, false, 0
	for j := start; j < len(s); j++ {
		if j&(ctxEvery-1) == 0 {
			if err := x.alive(); err != nil {
				return 0, err
			}
		}
		c := s[j]
		switch {
		case inStr:
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			if c == '{' {
				if len(x.pending) < maxRecorded {
					x.pending = append(x.pending, j)
				} else {
					x.bounded = true
				}
			}
		case c == '"':
			inStr = true
		case c == '{':
			depth++
			if len(x.opens) < maxRecorded {
				x.stack = append(x.stack, open{len(x.opens), depth})
				x.opens = append(x.opens, j)
				x.covered[j/64] |= 1 << (j % 64)
			} else {
				x.bounded = true
			}
		case c == '}':
			if n := len(x.stack); n > 0 && x.stack[n-1].depth == depth {
				if len(x.spans) < maxRecorded*(1+maxRestarts) {
					x.spans = append(x.spans, span{x.opens[x.stack[n-1].k], j + 1})
				} else {
					x.bounded = true
				}
				x.stack = x.stack[:n-1]
			}
			if depth--; depth == 0 {
				return j + 1, nil
			}
		}
	}
	return 0, nil
}

// redactURL drops credentials and the query string from a base URL before it
// is shown or stored.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return raw
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}
