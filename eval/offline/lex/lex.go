// Package lex cuts a text into the lexemes the offline judge analyses:
// runs of Chinese characters, words, numbers (a date such as 2024-06-01 is
// one) and other symbols.
package lex

import (
	"cmp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/words"
)

var monthWords = words.Set("months")

// Lexeme's fields are ordered so the flags share one word: there is one
// for every word analysed.
type Lexeme struct {
	Text    string
	Orig    string // the word as written, for reasons
	Kind    byte   // 'h' Han run, 'w' word, 'n' number, 'p' other symbol
	Capital bool   // a word that starts with an uppercase letter
	Spaced  bool   // a symbol with a space before it: "not - so" is not "not-for-profit"
}

// Lexemes cuts a text into Han runs, words, numbers and symbols.
func Lexemes(text string) []Lexeme {
	// The lexemes are slices of text, which must be valid UTF-8.
	if !utf8.ValidString(text) {
		text = string([]rune(text))
	}
	var out []Lexeme
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case unicode.Is(unicode.Han, r):
			j := runEnd(text, i, func(_ int, r rune, _ int) bool { return unicode.Is(unicode.Han, r) })
			out = append(out, Lexeme{Kind: 'h', Text: text[i:j]})
			i = j
		case unicode.IsDigit(r):
			// "2024-06-01" is one date, not three numbers (read in lexClause).
			j := i + norm.ISODate(text[i:])
			if j == i {
				j = runEnd(text, i, func(j int, r rune, n int) bool {
					return unicode.IsDigit(r) || (r == '.' || r == ',' || r == ':') && j > i && RuneAt(text, j+n, unicode.IsDigit)
				})
				// "2012.12:01" is a year and a time: a decimal has no colon.
				if d := strings.IndexByte(text[i:j], '.'); d > 0 && strings.IndexByte(text[i+d:j], ':') > 0 {
					j = i + d
				}
			}
			out = append(out, Lexeme{Kind: 'n', Text: text[i:j]})
			i = j
		case unicode.IsLetter(r):
			j := runEnd(text, i, func(j int, r rune, n int) bool {
				return unicode.IsLetter(r) && !unicode.Is(unicode.Han, r) || unicode.IsDigit(r) || (r == '\'' || r == '’') && RuneAt(text, j+n, unicode.IsLetter)
			})
			w := text[i:j]
			out = append(out, Lexeme{Kind: 'w', Text: strings.ReplaceAll(strings.ToLower(w), "’", "'"), Capital: unicode.IsUpper(r), Orig: w})
			i = j
		case unicode.IsSpace(r):
			i += n
		default:
			before, _ := utf8.DecodeLastRuneInString(text[:i])
			out = append(out, Lexeme{Kind: 'p', Text: text[i : i+n], Spaced: i > 0 && unicode.IsSpace(before)})
			i += n
		}
	}
	return out
}

// MonthAt: the word at i names a month (May only beside a number).
func MonthAt(lx []Lexeme, i int) bool {
	w := lx[i].Text
	return lx[i].Kind == 'w' && monthWords[w] && (len(w) > 3 || i > 0 && lx[i-1].Kind == 'n' || i+1 < len(lx) && lx[i+1].Kind == 'n')
}

// DateUnit is the unit of a number written beside a month's name: 日 for
// its day (31 March, March 31), 年 for a year after it (March 31, 2025); ""
// for another number.
func DateUnit(lx []Lexeme, i int, v string) string {
	n, err := strconv.Atoi(v)
	if err != nil {
		return ""
	}
	near := func(k int) bool { return k >= 0 && k < len(lx) && MonthAt(lx, k) }
	switch {
	case n >= 1 && n <= 31 && len(v) <= 2 && (near(i+1) || near(i-1)):
		return norm.Unit("日")
	case len(v) == 4 && n >= 1800 && n < 2200 && (near(i-1) || near(i-2) || near(i-3)):
		return "年"
	}
	return ""
}

// runEnd is the end of the run of s from byte i whose runes (each at byte j,
// n bytes long) are in it.
func runEnd(s string, i int, in func(j int, r rune, n int) bool) int {
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !in(i, r, n) {
			break
		}
		i += n
	}
	return i
}

// RuneAt reports whether the rune at byte i of s is one of class (false at
// the end of s).
func RuneAt(s string, i int, class func(rune) bool) bool {
	if i >= len(s) {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return class(r)
}

// FeaturePositions are the byte offsets in text of the first place of each of
// its features, named as the offline judge names them (w: stems, n:
// numbers, h: Chinese bigrams).
func FeaturePositions(text string) map[string]int {
	out := map[string]int{}
	put := func(f string, at int) {
		if _, ok := out[f]; !ok {
			out[f] = at
		}
	}
	lower, from := strings.ToLower(text), 0
	for _, l := range Lexemes(text) {
		at := strings.Index(lower[from:], strings.ToLower(cmp.Or(l.Orig, l.Text)))
		if at < 0 {
			continue
		}
		at += from
		from = at + len(l.Text)
		switch l.Kind {
		case 'w':
			put("w:"+norm.Stem(l.Text), at)
		case 'n':
			put("n:"+norm.Number(l.Text), at)
		case 'h':
			rs := []rune(l.Text)
			for k := 0; k+1 < len(rs); k++ {
				put("h:"+string(rs[k:k+2]), at+len(string(rs[:k])))
			}
		}
	}
	return out
}
