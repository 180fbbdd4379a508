// Package norm holds the normal forms the offline judge compares words and
// numbers in: Chinese numerals in digits (三十天 -> 30天, 两周 -> 14天,
// 1.5万 -> 15000, 百分之八十 -> 80%, 万分之五 -> 0.05%), plain numbers, one unit per thing,
// number words, dates (2024-06-01) and month names, a date computed from
// another and a span of time, light English stems, answer frames taken
// off, and a bare yes or no read as the question's proposition.
package norm

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// answerFrames open an answer without content ("答案是X。"): X is read.
var answerFrames = words.List("answer_frames")

// StripFrame removes an answer frame at the start of a text.
func StripFrame(s string) string {
	t := strings.TrimLeft(s, " \t")
	if t == "" || t[0] < 0x80 {
		return s
	}
	for _, f := range answerFrames {
		if strings.HasPrefix(t, f) {
			return strings.TrimLeft(t[len(f):], " ：:，,")
		}
	}
	return s
}

// NumberWords are the English number words by their value ("eight" -> "8").
var NumberWords = words.Map("number_words")

// NumberNames are the number words' stems by their value ("8" -> "eight").
var NumberNames = stemsByValue(NumberWords, "1")

// OrdinalWords are the English ordinal words by their value ("fifth" ->
// "5"); first and second are left out, as they are as often an order
// ("came first") or a unit ("30 seconds") as a count.
var OrdinalWords = words.Map("ordinal_words")

// OrdinalNames are the ordinal words' stems by their value ("5" -> "fifth").
var OrdinalNames = stemsByValue(OrdinalWords, "")

// stemsByValue are the stems of byWord's words by their value, skip's
// left out; of two words of one value, the first in sorted order (a map's
// order is random, and the stem is a feature that decides verdicts).
func stemsByValue(byWord map[string]string, skip string) map[string]string {
	m := map[string]string{}
	for _, w := range slices.Sorted(maps.Keys(byWord)) {
		if v := byWord[w]; v != skip {
			if _, ok := m[v]; !ok {
				m[v] = Stem(w)
			}
		}
	}
	return m
}

// sameQuantities rewrites a quantity written as a word (半年, a fortnight)
// as its number and unit (words/same_quantities.txt).
var sameQuantities = func() *strings.Replacer {
	var pairs []string
	for _, l := range words.List("same_quantities") {
		from, to, ok := strings.Cut(l, " = ")
		if !ok {
			panic(fmt.Sprintf("offline: word list same_quantities: %q is no \"phrase = as read\" line", l))
		}
		pairs = append(pairs, from, to)
	}
	return strings.NewReplacer(pairs...)
}()

// andAHalf is a Chinese count and a half of a unit: 一个半小时, 两年半,
// 3天半 (N个半<unit> or N<unit>半).
var andAHalf = regexp.MustCompile(`([0-9]+|[一二两三四五六七八九十]+)(?:个半(小时|月)|(小时|年|天|周|个月)半)`)

// halfMore rewrites an andAHalf match as the number of the smaller unit it
// makes, as 一年半 = 18个月 of words/same_quantities.txt (一个半小时 ->
// 90分钟, 两年半 -> 30个月), else with .5 (三天半 -> 3.5天).
func halfMore(m string) string {
	g := andAHalf.FindStringSubmatch(m)
	n, ok := digitsOrCN(g[1])
	if !ok {
		return m
	}
	switch unit := g[2] + g[3]; unit {
	case "小时":
		return strconv.Itoa(60*n+30) + "分钟"
	case "年":
		return strconv.Itoa(12*n+6) + "个月"
	case "月":
		return strconv.Itoa(n) + ".5个月"
	default:
		return strconv.Itoa(n) + ".5" + unit
	}
}

// spokenMoney is a sum of money as it is said: 三块五 (3.5元), 八毛二
// (0.82元), 五毛 (0.5元), 3块5毛 (3.5元); the character before a bare 毛
// is kept (group 1), so that one after 块 is read with it.
var spokenMoney = regexp.MustCompile(`([0-9]+|[一二两三四五六七八九十百千万]+)块([0-9一二两三四五六七八九])毛?|(^|[^0-9一二两三四五六七八九十百千万块元])([0-9一二两三四五六七八九])毛([0-9一二两三四五六七八九])?`)

// asYuan rewrites a spokenMoney match in yuan.
func asYuan(m string) string {
	g := spokenMoney.FindStringSubmatch(m)
	// g[2], g[4] and g[5] are one digit each, always read.
	if g[1] != "" { // N块M
		n, ok := digitsOrCN(g[1])
		if !ok {
			return m
		}
		d, _ := digitsOrCN(g[2])
		return fmt.Sprintf("%d.%d元", n, d)
	}
	d, _ := digitsOrCN(g[4])
	cents := ""
	if g[5] != "" {
		c, _ := digitsOrCN(g[5])
		cents = strconv.Itoa(c)
	}
	return fmt.Sprintf("%s0.%d%s元", g[3], d, cents)
}

// englishMagnitude is a number with an English magnitude: a word ("1.2
// million", "3 billion", "40 thousand"), "bn", or a letter after a currency
// symbol or attached to the number ("$1.2M", "$3B", "2.5k"); a bare
// "3m" is metres, and stays.
var englishMagnitude = regexp.MustCompile(`(?i)(?:\b|[$€£¥￥])(\d+(?:\.\d+)?)(?:\s*(thousand|million|billion|bn)\b|(k)\b)|([$€£¥￥])(\d+(?:\.\d+)?)([MB])\b`)

// magnitudeLike: t may hold an englishMagnitude (a digit, maybe a space,
// then k, m, b or t of thousand), found without it.
func magnitudeLike(t string) bool {
	for i := 0; i+1 < len(t); i++ {
		if !isDigit(rune(t[i])) {
			continue
		}
		j := i + 1
		if t[j] == ' ' && j+1 < len(t) {
			j++
		}
		switch t[j] | 0x20 { // lower case
		case 'k', 'm', 'b', 't':
			return true
		}
	}
	return false
}

// magnitudeOf is what each englishMagnitude word or letter multiplies by.
var magnitudeOf = map[string]float64{"thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "billion": 1e9, "bn": 1e9, "b": 1e9}

// timesMagnitude rewrites an englishMagnitude match as the number it is,
// its currency symbol kept.
func timesMagnitude(m string) string {
	g := englishMagnitude.FindStringSubmatch(m)
	num, word, symbol := g[1], g[2]+g[3], ""
	if g[5] != "" {
		num, word, symbol = g[5], g[6], g[4]
	} else if r, _ := utf8.DecodeRuneInString(m); strings.ContainsRune("$€£¥￥", r) {
		symbol = string(r)
	}
	f, err := strconv.ParseFloat(num, 64)
	mul, ok := magnitudeOf[strings.ToLower(word)]
	if err != nil || !ok { // a word the pattern gains but the table lacks must not read as 0
		return m
	}
	return symbol + strconv.FormatFloat(f*mul, 'f', -1, 64)
}

// clockTime is a time of day by the 12-hour clock: "5 pm", "9:30 a.m.",
// "下午5点", "上午9点半".
var clockTime = regexp.MustCompile(`(?i)\b(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\.?(?:\W|$)|(上午|早上|早晨|清晨|凌晨|早|中午|下午|傍晚|晚上|夜里)(\d{1,2})[点时](?:(\d{1,2})分|(半))?`)

// gluedRange is a date range whose dash was lost when the text was
// extracted ("26 September 188926 May 1976"): the year and the next
// date's day run together.
var gluedRange = regexp.MustCompile(`\b(` + monthPattern + ` \d{4})(\d{1,2} ` + monthPattern + `)`)

// digitRun reports whether t writes n digits or more in a row.
func digitRun(t string, n int) bool {
	run := 0
	for i := 0; i < len(t); i++ {
		if !isDigit(rune(t[i])) {
			run = 0
		} else if run++; run >= n {
			return true
		}
	}
	return false
}

// Quantities rewrites quantities written as words and times of day by the
// 12-hour clock as the number they are (半年 -> 6个月, "5 pm" -> 17:00), and
// parts a date range run together (gluedRange).
func Quantities(t string) string {
	if digitRun(t, 5) {
		t = gluedRange.ReplaceAllString(t, "$1 – $3")
	}
	if strings.Contains(t, "半") {
		t = andAHalf.ReplaceAllStringFunc(t, halfMore)
	}
	if strings.Contains(t, "块") || strings.Contains(t, "毛") {
		t = spokenMoney.ReplaceAllStringFunc(t, asYuan)
	}
	if magnitudeLike(t) {
		t = englishMagnitude.ReplaceAllStringFunc(t, timesMagnitude)
	}
	if strings.Contains(t, "半") || strings.Contains(t, "fortnight") || strings.Contains(t, "half") || strings.Contains(t, "quarter") {
		t = sameQuantities.Replace(t)
	}

	if !clockLike(t) {
		return t
	}
	return clockTime.ReplaceAllStringFunc(t, func(m string) string {
		g := clockTime.FindStringSubmatch(m)
		h, min, pm, tail := g[1], g[2], strings.EqualFold(g[3], "p"), ""
		if h == "" { // the Chinese form
			h, min, pm = g[5], g[6], g[4] == "下午" || g[4] == "晚上" || g[4] == "中午" || g[4] == "傍晚" || g[4] == "夜里"
			if g[7] != "" {
				min = "30"
			}
		} else if last := m[len(m)-1]; !(last >= 'a' && last <= 'z' || last >= 'A' && last <= 'Z' || last == '.') {
			tail = string(last) // the character after "pm", kept
		}
		n, _ := strconv.Atoi(h)
		if n > 12 {
			return m
		}
		if pm && n < 12 {
			n += 12
		} else if !pm && n == 12 {
			n = 0
		}
		return fmt.Sprintf("%02d:%02s", n, cmp.Or(min, "00")) + tail
	})
}

// clockLike: t has a digit before an a or p and an m ("5 pm", "9:30a.m."),
// or a part of the day in Chinese: what clockTime may match, found
// without it.
func clockLike(t string) bool {
	if strings.Contains(t, "午") || strings.Contains(t, "晚上") || strings.Contains(t, "早") || strings.Contains(t, "凌晨") || strings.Contains(t, "傍晚") || strings.Contains(t, "夜里") {
		return true
	}
	for i := 0; i < len(t); i++ {
		if !isDigit(rune(t[i])) {
			continue
		}
		j := i + 1
		for j < len(t) && (t[j] == ' ' || t[j] == ':' || isDigit(rune(t[j]))) {
			j++
		}
		if j+1 < len(t) && strings.ContainsRune("aApP", rune(t[j])) && strings.ContainsRune("mM.", rune(t[j+1])) {
			return true
		}
		i = j - 1
	}
	return false
}

// compoundNumber is an English number of two words: "twenty-four",
// "forty five", "two hundred", "three thousand".
var compoundNumber = regexp.MustCompile(`(?i)\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|one|two|three|four|five|six|seven|eight|nine|ten|twelve)[- ](one|two|three|four|five|six|seven|eight|nine|hundred|thousand)\b`)

// EnglishNumbers rewrites the compound English numbers of t in digits
// ("twenty-four hours" -> "24 hours"); a number of one word is read by
// NumberWords where it is analysed.
func EnglishNumbers(t string) string {
	if !strings.Contains(t, "ty") && !strings.Contains(t, "hundred") && !strings.Contains(t, "thousand") &&
		!strings.Contains(t, "TY") && !strings.Contains(t, "Ty") {
		return t
	}
	return compoundNumber.ReplaceAllStringFunc(t, func(m string) string {
		a, b := strings.ToLower(m[:strings.IndexAny(m, "- ")]), strings.ToLower(m[strings.IndexAny(m, "- ")+1:])
		x, _ := strconv.Atoi(NumberWords[a])
		switch b {
		case "hundred":
			return strconv.Itoa(x * 100)
		case "thousand":
			return strconv.Itoa(x * 1000)
		}
		y, _ := strconv.Atoi(NumberWords[b])
		if x < 20 || x%10 != 0 { // "one two" is no number
			return m
		}
		return strconv.Itoa(x + y)
	})
}

// numeralRunes are the characters that can start a rewrite.
const numeralRunes = "零〇一二两三四五六七八九十百千万亿周星"

func isCNNumeral(r rune) bool {
	_, ok := cnDigits[r]
	return ok || r == '十' || r == '百' || r == '千' || r == '万' || r == '亿'
}

// Numerals rewrites the numerals of t in digits (see the package doc).
func Numerals(t string) string {
	if !strings.ContainsAny(t, numeralRunes) {
		return t
	}
	rs := []rune(t)
	var b strings.Builder
	b.Grow(len(t))
	changed, i := false, 0
	// emit writes s in place of the runes up to next.
	emit := func(s string, next int) {
		b.WriteString(s)
		i, changed = next, true
	}
	for i < len(rs) {
		// 百分之八十 -> 80%; 千分之五 -> 0.5%, 万分之五 -> 0.05%
		if per := perHundred[rs[i]]; per > 0 && i+3 < len(rs) && rs[i+1] == '分' && rs[i+2] == '之' {
			k := i + 3
			for k < len(rs) && isCNNumeral(rs[k]) {
				k++
			}
			if v, ok := parseCNNumber(rs[i+3 : k]); ok && k > i+3 {
				emit(strconv.FormatFloat(float64(v)/per, 'f', -1, 64)+"%", k)
				continue
			}
		}
		j := i + 1 // the runes copied as they are when not rewritten
		// Arabic number, then 万/亿: 1.5万 -> 15000
		if isDigit(rs[i]) && (i == 0 || !isDigit(rs[i-1]) && rs[i-1] != '.') {
			j = i
			for j < len(rs) && (isDigit(rs[j]) || rs[j] == '.' && j+1 < len(rs) && isDigit(rs[j+1])) {
				j++
			}
			if j < len(rs) && magnitudes[rs[j]] > 0 {
				if f, err := strconv.ParseFloat(string(rs[i:j]), 64); err == nil {
					emit(strconv.FormatFloat(f*magnitudes[rs[j]], 'f', -1, 64), j+1)
					continue
				}
			}
			if e := weeksEnd(rs, j); e > 0 && (i == 0 || rs[i-1] != '第') {
				if v, err := strconv.Atoi(string(rs[i:j])); err == nil {
					emit(strconv.Itoa(7*v)+"天", e)
					continue
				}
			}
		} else if isCNNumeral(rs[i]) && rs[i] != '万' && rs[i] != '亿' {
			j = i
			for j < len(rs) && isCNNumeral(rs[j]) {
				j++
			}
			// A numeral before a measure word or with a magnitude (十五万);
			// 一般, 万一 stay words.
			next := rune(0)
			if j < len(rs) {
				next = rs[j]
			}
			// 千克, 千米, 千瓦: a unit's 千 after a numeral it cannot
			// multiply (三十千克 is 30千克, not 1030克; 二百万千瓦 is 2000000千瓦;
			// 五千米 stays 5000米).
			if j-i > 2 && rs[j-1] == '千' && strings.ContainsRune("十百万亿", rs[j-2]) && strings.ContainsRune(kiloUnits, next) {
				j--
				next = '千'
			}
			ordinal := i > 0 && rs[i-1] == '第'
			if v, ok := parseCNNumber(rs[i:j]); ok && !ordinal && (cnUnits[next] || j-i > 1 && strings.ContainsAny(string(rs[i:j]), "十百千万")) {
				if e := weeksEnd(rs, j); e > 0 {
					emit(strconv.Itoa(7*v)+"天", e)
				} else {
					emit(strconv.Itoa(v), j)
				}
				continue
			}
		}
		b.WriteString(string(rs[i:j]))
		i = j
	}
	if !changed {
		return t
	}
	return b.String()
}

func isDigit(r rune) bool { return r >= '0' && r <= '9' }

// weeksEnd is the end of the 周 or 个星期 rs writes from i (两个星期 is
// 两周), or 0.
func weeksEnd(rs []rune, i int) int {
	switch {
	case i < len(rs) && rs[i] == '周':
		return i + 1
	case i+2 < len(rs) && rs[i] == '个' && rs[i+1] == '星' && rs[i+2] == '期':
		return i + 3
	}
	return 0
}

// kiloUnits follow a 千 that makes a unit of them (千克, 千米, 千瓦, 千卡).
const kiloUnits = "克米瓦卡"

// perHundred: what 百分之, 千分之 and 万分之 divide their number by to give it
// in percent.
var perHundred = map[rune]float64{'百': 1, '千': 10, '万': 100}

// magnitudes multiply the Arabic number before them.
var magnitudes = map[rune]float64{'万': 1e4, '亿': 1e8}

// unitCanon are the units that name the same thing, by the unit the
// quantity reader gives them.
var unitCanon = words.Map("same_units")

// Unit is the unit as compared.
func Unit(u string) string { return cmp.Or(unitCanon[u], u) }

// unitKinds are the kinds of quantity units measure (words/unit_kinds.txt).
var unitKinds = words.Map("unit_kinds")

// SameKind: the two units, not the same, measure one kind of quantity (30
// lb and 30 kg; 15 minutes and 15 hours).
func SameKind(a, b string) bool {
	return a != b && unitKinds[a] != "" && unitKinds[a] == unitKinds[b]
}

// unitFactors: how many of a smaller unit one of a larger makes
// (words/unit_factors.txt).
var unitFactors = words.Map("unit_factors")

// SameAmount: two quantities in units of one kind, one a multiple of the
// other, are the same amount (2年 and 24个月; 3 weeks and 21 days; 1.5 km
// and 1500 m, 110 cm and 1,100 mm, through the smaller units in turn).
func SameAmount(v1, u1, v2, u2 string) bool {
	if u1 == u2 || !SameKind(u1, u2) {
		return false
	}
	x, a, ok1 := Smallest(v1, u1)
	y, b, ok2 := Smallest(v2, u2)
	return ok1 && ok2 && a == b && math.Abs(x-y) < 1e-9*math.Max(1, math.Abs(x))
}

// Smallest is the amount in the smallest unit its unit's multiples reach
// (2年: 24 个月); ok is false for a value that is no number.
func Smallest(v, u string) (float64, string, bool) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0, "", false
	}
	for range 4 { // the chains are short; a loop in the list ends here
		base, f, ok := strings.Cut(unitFactors[u], ":")
		if !ok {
			break // no larger unit: parsing "" would only make an error
		}
		n, err := strconv.ParseFloat(f, 64)
		if err != nil {
			break
		}
		x, u = x*n, base
	}
	return x, u, true
}

// Convertible: the two units have a common smaller unit (年 and 个月).
func Convertible(a, b string) bool {
	_, x, _ := Smallest("1", a)
	_, y, _ := Smallest("1", b)
	return a != "" && b != "" && a != b && x == y
}

// OtherKind: the two units measure known kinds of quantity, not one (86
// km² is no 86 km).
func OtherKind(a, b string) bool {
	return unitKinds[a] != "" && unitKinds[b] != "" && unitKinds[a] != unitKinds[b]
}

// HanUnit is the unit a Chinese text after a number opens on: the longest
// unit of two to four characters that words/same_units.txt names (公斤,
// 个月, 平方公里 before 公里), else its first character.
func HanUnit(text string) string {
	rs := []rune(text)
	for n := min(4, len(rs)); n >= 2; n-- {
		if _, ok := unitCanon[string(rs[:n])]; ok {
			return string(rs[:n])
		}
	}
	return string(rs[:1])
}

// digitsOrCN is the number x writes in digits or in Chinese numerals.
func digitsOrCN(x string) (int, bool) {
	if n, err := strconv.Atoi(x); err == nil {
		return n, true
	}
	return parseCNNumber([]rune(x))
}

var cnDigits = map[rune]int{'零': 0, '〇': 0, '一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
var cnUnits = words.Runes("chinese_units")

func parseCNNumber(rs []rune) (int, bool) {
	total, section, digit := 0, 0, -1
	lastMul, zero := 0, false // the last magnitude read, and a 零 after it
	for _, r := range rs {
		switch r {
		case '十', '百', '千':
			mul := map[rune]int{'十': 10, '百': 100, '千': 1000}[r]
			if digit < 0 {
				digit = 1
			}
			section += digit * mul
			digit, lastMul, zero = -1, mul, false
		case '万':
			if digit > 0 {
				section += digit
			}
			total += section * 10000
			section, digit, lastMul, zero = 0, -1, 10000, false
		default:
			d, ok := cnDigits[r]
			if !ok {
				return 0, false
			}
			zero = zero || d == 0
			// 二〇二三: positional digits
			digit = max(digit, 0)*10 + d
		}
	}
	if digit > 0 {
		// 三万五 is 35000 and 一百五 150, as they are said; 一百零五 is 105.
		if digit < 10 && lastMul >= 100 && !zero {
			digit *= lastMul / 10
		}
		section += digit
	}
	return total + section, true
}

// Number is a number without separators, trailing decimal or leading zeros.
func Number(s string) string {
	s = strings.ReplaceAll(s, ",", "")
	if strings.Contains(s, ".") && !strings.Contains(s, ":") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if len(s) > 1 && !strings.Contains(s, ".") && !strings.Contains(s, ":") {
		s = cmp.Or(strings.TrimLeft(s, "0"), "0")
	}
	// A clock time has two digits of hours: 6:00 is 06:00.
	if h, m, ok := strings.Cut(s, ":"); ok && len(h) == 1 && len(m) == 2 {
		s = "0" + s
	}
	return s
}

// Stem is a light English suffix stemmer, without a dictionary.
func Stem(w string) string {
	w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "'")
	if base := irregularVerbs[w]; base != "" {
		w = base
	}
	if utf8.RuneCountInString(w) <= 3 {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes") || strings.HasSuffix(w, "xes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	// delivery -> deliver, as the noun in -ery reads as its verb.
	if strings.HasSuffix(w, "ery") && len(w) >= 7 {
		w = w[:len(w)-1]
	}
	for _, suf := range []string{"ingly", "ing", "edly", "ed", "ly", "ment", "ness", "ation", "ion", "er", "e"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = w[:len(w)-len(suf)]
			// delivered -> deliver -> deliv, as deliver itself.
			if (strings.HasPrefix(suf, "ed") || strings.HasPrefix(suf, "ing")) && strings.HasSuffix(w, "er") && len(w) >= 5 {
				w = w[:len(w)-2]
			}
			break
		}
	}
	// production -> product -> produc, as produced and producer.
	if strings.HasSuffix(w, "duct") && len(w) >= 6 {
		w = w[:len(w)-1]
	}
	// studied -> studi -> study, as study itself and plays -> play stay whole.
	if n := len(w); n > 3 && w[n-1] == 'i' {
		w = w[:n-1] + "y"
	}
	// hopping -> hopp -> hop
	if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouls", rune(w[n-1])) {
		w = w[:n-1]
	}
	return w
}

// irregularVerbs maps a verb's irregular past form to the verb: "paid by
// Billing" and "Billing pays" say the same part.
var irregularVerbs = words.Map("irregular_verbs")

// IrregularPast reports whether w is the irregular past form of a verb
// (paid, held), which Stem reads as the verb.
func IrregularPast(w string) bool { return irregularVerbs[w] != "" }

// Bare yes/no answers assert or deny the question's proposition.
var (
	YesWords = words.Set("yes")
	NoWords  = words.Set("no")
	// EnglishQuestionAux open a yes/no question, dropped from its proposition.
	EnglishQuestionAux = words.Set("english_question_aux")
)

// YesNo reports whether an answer is only yes or no, and which.
func YesNo(answer string) (yes, ok bool) {
	a := strings.ToLower(strings.TrimFunc(StripFrame(plaintext.StripControls(answer)), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r)
	}))
	a = strings.TrimPrefix(a, "the answer is ")
	switch {
	case YesWords[a]:
		return true, true
	case NoWords[a]:
		return false, true
	}
	return false, false
}

// Proposition is the claim a yes/no question asks about, and it denied:
// "Are both X and Y American?" -> "both X and Y American", "not both X and
// Y American". ok is false for a question without content.
func Proposition(question string) (affirmed, denied string, ok bool) {
	q := strings.TrimSpace(plaintext.StripControls(question))
	q = strings.TrimRight(q, "?？。.! ")
	if q == "" {
		return "", "", false
	}
	if strings.ContainsFunc(q, plaintext.IsHan) {
		q = strings.TrimSuffix(strings.TrimSuffix(q, "吗"), "么")
		q = strings.Replace(q, "是否", "", 1)
		q = strings.Replace(q, "是不是", "是", 1)
		return q, "并非" + q, plaintext.HasContent(q)
	}
	w := strings.Fields(q)
	if len(w) > 1 && EnglishQuestionAux[strings.ToLower(w[0])] {
		w = w[1:]
	}
	p := strings.Join(w, " ")
	return p, "not " + p, plaintext.HasContent(p)
}

// PropositionStatements are the statements of a yes or a no to question:
// its proposition affirmed or denied.
func PropositionStatements(question string, yes bool) []string {
	aff, den, ok := Proposition(question)
	switch {
	case !ok:
		return nil
	case strings.ContainsFunc(question, plaintext.IsHan) && yes:
		return []string{"是的，" + aff}
	case strings.ContainsFunc(question, plaintext.IsHan):
		return []string{"不，" + den}
	case yes:
		return []string{"Yes: " + aff}
	}
	return []string{"No, " + den}
}
