package norm

import (
	"strconv"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/words"
)

// MonthNames are the months' full names, January first.
var MonthNames = words.List("months")[:12]

// MonthNumber is the number of a month's name or abbreviation ("3" of
// March, Mar).
func MonthNumber(w string) string {
	for k, m := range MonthNames {
		if strings.HasPrefix(m, w[:3]) {
			return strconv.Itoa(k + 1)
		}
	}
	return w
}

// ISODate is the length of the Y-M-D or Y/M/D date s opens with (4-digit
// year, 1- or 2-digit month and day, one separator), or 0.
func ISODate(s string) int {
	digits := func(i, lo, hi int) int {
		j := i
		for j < len(s) && j-i < hi && isDigit(rune(s[j])) {
			j++
		}
		if j-i < lo {
			return -1
		}
		return j
	}
	i := digits(0, 4, 4)
	if i < 0 || i >= len(s) || s[i] != '-' && s[i] != '/' {
		return 0
	}
	sep := s[i]
	if i = digits(i+1, 1, 2); i < 0 || i >= len(s) || s[i] != sep {
		return 0
	}
	if i = digits(i+1, 1, 2); i < 0 || i < len(s) && isDigit(rune(s[i])) {
		return 0
	}
	return i
}

// DateParts are the year, month and day of an ISODate lexeme, or nil.
func DateParts(t string) []string {
	if len(t) < 8 || ISODate(t) != len(t) {
		return nil
	}
	return strings.FieldsFunc(t, func(r rune) bool { return r == '-' || r == '/' })
}
