package plaintext

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/sentences"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// Sentences splits a text without control sequences into trimmed
// sentences with content, cut at semicolons and newlines too, and says for
// each whether a semicolon precedes it.
func Sentences(text string) (out []string, afterSemicolon []bool) {
	text = StripControls(text)
	iter := sentences.FromString(unglue(text))
	// carry holds the segments of a sentence UAX #29 cut too early (a
	// builder: "Mr. Mr. …" costs its length, not its square).
	var carry strings.Builder
	flush := func() {
		for _, line := range strings.Split(carry.String(), "\n") {
			for n, piece := range ContentPieces(line, "；;") {
				out = append(out, piece)
				afterSemicolon = append(afterSemicolon, n > 0)
			}
		}
		carry.Reset()
	}
	var segs []string
	for iter.Next() {
		segs = append(segs, iter.Value())
	}
	for k, seg := range segs {
		carry.WriteString(seg)
		// UAX #29 breaks after an initial, an abbreviation, an inline
		// list's number and a title's ! or ? before lower case ("Jeopardy!
		// is"): the sentence continues.
		if periodContinues(seg) || k+1 < len(segs) && exclaimedTitle(seg, segs[k+1]) {
			continue
		}
		flush()
	}
	flush() // a sentence continued to the end
	return out, afterSemicolon
}

// exclaimedTitle: sent ends at a ! or ? that next, in lower case, continues.
func exclaimedTitle(sent, next string) bool {
	t := strings.TrimRight(sent, " \t\"'”’)")
	if !strings.HasSuffix(t, "!") && !strings.HasSuffix(t, "?") {
		return false
	}
	n := strings.TrimLeft(next, " \t")
	return n != "" && n[0] >= 'a' && n[0] <= 'z'
}

// abbreviations end in a period without ending a sentence (Mr., v., No.).
var abbreviations = words.Set("abbreviations")

// periodContinues: s ends at a period that ends no sentence: an initial's
// ("J. Robert"), an abbreviation's ("Mr. Smith": joining two sentences,
// "Inc.", loses less than cutting a name), or an inline list's number's
// ("以下文件：1.", "； 2."), which opens the item after it; not a clock's
// minutes' ("15:21.").
func periodContinues(s string) bool {
	t, ok := strings.CutSuffix(strings.TrimRight(s, " "), ".")
	if !ok {
		return false
	}
	if n := len(t); n >= 1 && t[n-1] >= 'A' && t[n-1] <= 'Z' && (n == 1 || t[n-2] == ' ' || t[n-2] == '.') {
		return true // an initial
	}
	i := strings.LastIndexFunc(t, func(r rune) bool { return !unicode.IsLetter(r) })
	if w := t[i+1:]; w != "" && len(w) <= 6 && abbreviations[strings.ToLower(w)] && (i < 0 || t[i] == ' ' || t[i] == '(') {
		return true
	}
	d := strings.TrimRightFunc(t, unicode.IsDigit)
	if n := len(t) - len(d); n == 0 || n > 2 {
		return false
	}
	d = strings.TrimRight(d, " ")
	if d == "" {
		return true
	}
	r, n := utf8.DecodeLastRuneInString(d)
	if r == ':' && strings.TrimRightFunc(d[:len(d)-n], unicode.IsDigit) != d[:len(d)-n] {
		return false
	}
	return strings.ContainsRune(":：;；", r)
}

// unglue inserts the missing space of scraped text's "century.First": after
// a period that follows two lowercase letters, a digit or a closing quote and
// precedes an ASCII capital ("U.S.A" and "e.g." are left alone).
func unglue(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	rs := []rune(s)
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range rs {
		b.WriteRune(r)
		if r == '.' && i > 1 && i+1 < len(rs) && unicode.IsUpper(rs[i+1]) && rs[i+1] < unicode.MaxASCII &&
			(unicode.IsLower(rs[i-1]) && unicode.IsLower(rs[i-2]) || unicode.IsDigit(rs[i-1]) || strings.ContainsRune(")\"'”", rs[i-1])) {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// parenthesised marks the runes inside a parenthesis that closes in rs, or
// is nil when none does; linear whatever the nesting ("((((…))))").
func parenthesised(rs []rune) []bool {
	var open []int
	var depth []int // +1 where a matched pair opens, -1 after it closes
	for i, r := range rs {
		switch r {
		case '(', '（':
			open = append(open, i)
		case ')', '）':
			if len(open) == 0 {
				continue
			}
			if depth == nil {
				depth = make([]int, len(rs)+1)
			}
			depth[open[len(open)-1]]++
			depth[i+1]--
			open = open[:len(open)-1]
		}
	}
	if depth == nil {
		return nil
	}
	in := make([]bool, len(rs))
	d := 0
	for i := range rs {
		d += depth[i]
		in[i] = d > 0
	}
	return in
}

// ContentPieces are the pieces of s cut at each of the separator runes,
// trimmed, that have content; not cut at a ',' between digits nor at a
// semicolon inside a parenthesis ("Ann Lee (painter; born 1950) is…").
func ContentPieces(s, seps string) []string {
	var out []string
	rs := []rune(s)
	inParen := parenthesised(rs)
	add := func(piece []rune) {
		if p := strings.TrimSpace(string(piece)); HasContent(p) {
			out = append(out, p)
		}
	}
	start := 0
	for i, r := range rs {
		if !strings.ContainsRune(seps, r) ||
			r == ',' && i > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1]) ||
			(r == ';' || r == '；') && inParen != nil && inParen[i] {
			continue
		}
		add(rs[start:i])
		start = i + 1
	}
	add(rs[start:])
	return out
}

// HasContent: s has a letter or a digit (a Chinese character is a letter).
func HasContent(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}
