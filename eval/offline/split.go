package offline

import (
	"slices"
	"strings"
	"unicode"

	"github.com/clipperhouse/uax29/v2/sentences"
	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/eval/offline/words"
	"github.com/ragscope/ragscope/internal/memo"
)

// MinClauseRunes is the least content (contentRunes) a Chinese clause needs
// to stand as a statement of its own: shorter ones ("会的") are fragments,
// merged into their neighbour.
const MinClauseRunes = 6

// subordinateEnds and subordinateStarts mark a Chinese clause that only sets
// the scene for the next one (转为一般纳税人后, 根据公司制度, 如果...).
var (
	subordinateEnds   = words.List("subordinate_ends")
	subordinateStarts = words.List("subordinate_starts")
)

// SplitStatements splits a text into statements: sentences by UAX #29, cut
// at semicolons and line breaks, Chinese ones at commas (an English comma
// more often sets off an apposition), short or subordinate clauses merged
// into their neighbour.
func SplitStatements(text string) []string {
	// A copy: the caller may change it, the memo's must stay.
	return slices.Clone(splits.Get(text, splitStatements))
}

// StatementsFor are the statements of an answer to question: those of
// SplitStatements, or, for a bare yes or no, the question's proposition
// affirmed or denied ("Yes: both X and Y American", "No, not both X and Y American").
func StatementsFor(question, answer string) []string {
	stmts := SplitStatements(answer)
	if yes, ok := norm.YesNo(answer); ok && len(stmts) == 0 {
		if p := norm.PropositionStatements(question, yes); p != nil {
			return p
		}
	}
	return stmts
}

var splits = memo.New[[]string](analysisCacheSize)

func splitStatements(text string) []string {
	var out []string
	sents, _ := sentencePieces(text)
	for _, sent := range sents {
		if !containsHan(sent) {
			out = append(out, splitEnglish(sent)...)
			continue
		}
		out = append(out, mergeClauses(contentPieces(sent, "，,"))...)
	}
	tooShort := func(s string) bool { return contentRunes(s) < MinStatementRunes }
	return dropContentless(mergeForward(out, " ", tooShort, tooShort))
}

// dropContentless drops statements with no content at all ("Yes."): scoring
// them 0 would punish a correct yes/no answer.
func dropContentless(stmts []string) []string {
	return slices.DeleteFunc(stmts, func(s string) bool {
		sp := analyze(s)
		return len(sp.feats) == 0 && len(sp.unis) == 0 && len(sp.quants) == 0
	})
}

// MinStatementRunes: a statement with less content ("No.", "不会。") is
// merged into the next one (the previous when last); a lone one stays.
const MinStatementRunes = 3

// mergeForward joins with sep each piece holdBack holds onto the next, and
// a last piece lastTooShort holds onto the one before.
func mergeForward(pieces []string, sep string, holdBack, lastTooShort func(string) bool) []string {
	var out []string
	pending := ""
	for i, p := range pieces {
		if pending != "" {
			p = pending + sep + p
			pending = ""
		}
		if i+1 < len(pieces) && holdBack(p) {
			pending = p
			continue
		}
		out = append(out, p)
	}
	if n := len(out); n >= 2 && lastTooShort(out[n-1]) {
		out[n-2] += sep + out[n-1]
		out = out[:n-1]
	}
	return out
}

// englishJoins are where an English sentence is cut when both sides are
// claims of their own: a comma and a conjunction, or a semicolon.
var englishJoins = func() []string {
	var out []string
	for _, w := range words.List("english_joins") {
		out = append(out, ", "+w+" ")
	}
	return append(out, "; ")
}()

// minEnglishClauseWords is the least words each side of a joint needs.
const minEnglishClauseWords = 4

func splitEnglish(sent string) []string {
	for _, j := range englishJoins {
		i := indexFold(sent, j)
		if i < 0 {
			continue
		}
		if left, right := strings.TrimSpace(sent[:i]), strings.TrimSpace(sent[i+len(j):]); len(strings.Fields(left)) >= minEnglishClauseWords && len(strings.Fields(right)) >= minEnglishClauseWords {
			return append([]string{left}, splitEnglish(right)...)
		}
	}
	return []string{sent}
}

// sentencePieces splits a text without control sequences into trimmed
// sentences with content, cut at semicolons and newlines too, and says for
// each whether a semicolon precedes it.
func sentencePieces(text string) (out []string, afterSemicolon []bool) {
	text = plaintext.StripControls(text)
	iter := sentences.FromString(unglue(text))
	// carry holds the segments of a sentence UAX #29 cut too early (a
	// builder: "Mr. Mr. …" costs its length, not its square).
	var carry strings.Builder
	flush := func() {
		for _, line := range strings.Split(carry.String(), "\n") {
			for n, piece := range contentPieces(line, "；;") {
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
		// UAX #29 breaks after an initial ("J. Robert"), an abbreviation
		// ("Mr. Smith") and a title's ! or ? before lower case ("Jeopardy!
		// is"): the sentence continues.
		if endsWithInitial(seg) || endsWithAbbreviation(seg) || k+1 < len(segs) && exclaimedTitle(seg, segs[k+1]) {
			continue
		}
		flush()
	}
	if carry.Len() > 0 {
		flush()
	}
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

// endsWithAbbreviation reports whether s ends with one of abbreviations:
// joining two sentences ("Inc.") loses less than cutting a name.
func endsWithAbbreviation(s string) bool {
	t := strings.TrimRight(s, " ")
	if !strings.HasSuffix(t, ".") {
		return false
	}
	t = t[:len(t)-1]
	i := strings.LastIndexFunc(t, func(r rune) bool { return !unicode.IsLetter(r) })
	w := t[i+1:]
	return w != "" && len(w) <= 6 && abbreviations[strings.ToLower(w)] && (i < 0 || t[i] == ' ' || t[i] == '(')
}

func endsWithInitial(s string) bool {
	t := strings.TrimRight(s, " ")
	n := len(t)
	return n >= 2 && t[n-1] == '.' && t[n-2] >= 'A' && t[n-2] <= 'Z' && (n == 2 || t[n-3] == ' ' || t[n-3] == '.')
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

// cutAny cuts s at each of the separator runes, except a ',' between digits
// and a semicolon inside a parenthesis ("Ann Lee (painter; born 1950) is…").
func cutAny(s, seps string) []string {
	var out []string
	rs := []rune(s)
	inParen := parenthesised(rs)
	start := 0
	for i, r := range rs {
		if !strings.ContainsRune(seps, r) {
			continue
		}
		if r == ',' && i > 0 && i+1 < len(rs) && unicode.IsDigit(rs[i-1]) && unicode.IsDigit(rs[i+1]) {
			continue
		}
		if (r == ';' || r == '；') && inParen != nil && inParen[i] {
			continue
		}
		out = append(out, string(rs[start:i]))
		start = i + 1
	}
	return append(out, string(rs[start:]))
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

// contentPieces are the pieces of s cut at seps (cutAny), trimmed, that
// have content.
func contentPieces(s, seps string) []string {
	var out []string
	for _, p := range cutAny(s, seps) {
		if p = strings.TrimSpace(p); hasContent(p) {
			out = append(out, p)
		}
	}
	return out
}

func mergeClauses(clauses []string) []string {
	return mergeForward(clauses, "，",
		func(c string) bool { return contentRunes(c) < MinClauseRunes || isSubordinate(c) || onlyCommon(c) },
		func(c string) bool { return contentRunes(c) < MinClauseRunes })
}

func isSubordinate(c string) bool {
	plain := strings.TrimRight(c, "。！？!?.")
	return slices.ContainsFunc(subordinateEnds, func(e string) bool { return strings.HasSuffix(plain, e) }) ||
		slices.ContainsFunc(subordinateStarts, func(s string) bool { return strings.HasPrefix(plain, s) })
}

func hasContent(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) })
}

func containsHan(s string) bool {
	return strings.ContainsFunc(s, isHan)
}

// contentRunes counts Han characters, and a Latin word as two (a Chinese word).
func contentRunes(s string) int {
	n := 0
	inWord := false
	for _, r := range s {
		switch {
		case isHan(r):
			n++
			inWord = false
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			if !inWord {
				n += 2
			}
			inWord = true
		default:
			inWord = false
		}
	}
	return n
}

// indexFold is the byte offset of sub in s, ignoring case, or -1; offsets in
// strings.ToLower(s) are not offsets in s (a Kelvin sign changes length).
func indexFold(s, sub string) int {
	for i := range s {
		if i+len(sub) <= len(s) && strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}
