package offline

import (
	"strconv"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/words"
)

// numeralRunes are the characters that can start a rewrite; a text with
// none of them is returned as it is, without a copy.
const numeralRunes = "零〇一二两三四五六七八九十百千万亿周"

func isCNNumeral(r rune) bool {
	_, ok := cnDigits[r]
	return ok || r == '十' || r == '百' || r == '千' || r == '万' || r == '亿'
}

// normalizeNumerals rewrites the numerals of t as above.
func normalizeNumerals(t string) string {
	if !strings.ContainsAny(t, numeralRunes) {
		return t
	}
	rs := []rune(t)
	var b strings.Builder
	b.Grow(len(t))
	changed := false
	for i := 0; i < len(rs); {
		// 百分之八十 -> 80%
		if rs[i] == '百' && i+3 < len(rs) && rs[i+1] == '分' && rs[i+2] == '之' {
			j := i + 3
			for j < len(rs) && isCNNumeral(rs[j]) {
				j++
			}
			if v, ok := parseCNNumber(rs[i+3 : j]); ok && j > i+3 {
				b.WriteString(strconv.Itoa(v) + "%")
				i, changed = j, true
				continue
			}
		}
		// Arabic number, then 万/亿: 1.5万 -> 15000
		if isDigit(rs[i]) && (i == 0 || !isDigit(rs[i-1]) && rs[i-1] != '.') {
			j := i
			for j < len(rs) && (isDigit(rs[j]) || rs[j] == '.' && j+1 < len(rs) && isDigit(rs[j+1])) {
				j++
			}
			if j < len(rs) && (rs[j] == '万' || rs[j] == '亿') {
				if f, err := strconv.ParseFloat(string(rs[i:j]), 64); err == nil {
					mul := 1e4
					if rs[j] == '亿' {
						mul = 1e8
					}
					b.WriteString(strconv.FormatFloat(f*mul, 'f', -1, 64))
					i, changed = j+1, true
					continue
				}
			}
			if j < len(rs) && rs[j] == '周' && (i == 0 || rs[i-1] != '第') {
				if v, err := strconv.Atoi(string(rs[i:j])); err == nil {
					b.WriteString(strconv.Itoa(7*v) + "天")
					i, changed = j+1, true
					continue
				}
			}
			b.WriteString(string(rs[i:j]))
			i = j
			continue
		}
		if isCNNumeral(rs[i]) && rs[i] != '万' && rs[i] != '亿' {
			j := i
			for j < len(rs) && isCNNumeral(rs[j]) {
				j++
			}
			// A numeral counts before a measure word, or when it has a
			// magnitude of its own (十五万); 一般, 统一, 万一 stay words.
			next := rune(0)
			if j < len(rs) {
				next = rs[j]
			}
			ordinal := i > 0 && rs[i-1] == '第'
			if v, ok := parseCNNumber(rs[i:j]); ok && !ordinal && (cnUnits[next] || j-i > 1 && strings.ContainsAny(string(rs[i:j]), "十百千万")) {
				if next == '周' {
					b.WriteString(strconv.Itoa(7*v) + "天")
					i, changed = j+1, true
					continue
				}
				b.WriteString(strconv.Itoa(v))
				i, changed = j, true
				continue
			}
			b.WriteString(string(rs[i:j]))
			i = j
			continue
		}
		b.WriteRune(rs[i])
		i++
	}
	if !changed {
		return t
	}
	return b.String()
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// unitCanon are the units that name the same thing, by the unit the
// quantity reader gives them (the first character of a Chinese unit, the
// stem of an English one).
var unitCanon = words.Map("same_units")

// canonUnit is the unit as compared.
func canonUnit(u string) string {
	if c, ok := unitCanon[u]; ok {
		return c
	}
	return u
}
