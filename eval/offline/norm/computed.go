package norm

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// A Date is a day a text writes; Year is 0 when the text leaves it out.
type Date struct {
	Year  int
	Month time.Month
	Day   int
	Text  string
}

var (
	monthPattern = `(January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)\.?`
	datePatterns = []*regexp.Regexp{
		regexp.MustCompile(`(\d{4})[-/](\d{1,2})[-/](\d{1,2})`),             // year month day
		regexp.MustCompile(`(?:(\d{4})年)?(\d{1,2})月(\d{1,2})[日号]`),          // year month day
		regexp.MustCompile(`(\d{1,2}) ` + monthPattern + `(?:,? (\d{4}))?`), // day month year
		regexp.MustCompile(monthPattern + ` (\d{1,2})(?:st|nd|rd|th)?(?:, (\d{4}))?\b`),
	}
	// A length of time in calendar days, weeks or months, or hours that
	// make whole days ("the 72-hour rule"); working or business days are
	// not calendar days and are left out.
	spanPattern = regexp.MustCompile(`(?i)\b(\d+|[a-z]+)[ -](calendar )?(days?|weeks?|months?|hours?)\b|(\d+)(个)?(天|日|周|星期|个月|小时)`)
)

// Dates are the dates t writes: 2025-06-30, 2025年6月30日, 6月30日, 30 June
// 2025, June 30, 2025, 30 June.
func Dates(t string) []Date {
	var out []Date
	for k, re := range datePatterns {
		for _, m := range re.FindAllStringSubmatch(t, -1) {
			y, mo, d := m[1], m[2], m[3]
			switch k {
			case 2:
				y, mo, d = m[3], MonthNumber(strings.ToLower(m[2])), m[1]
			case 3:
				y, mo, d = m[3], MonthNumber(strings.ToLower(m[1])), m[2]
			}
			yi, _ := strconv.Atoi(y)
			mi, _ := strconv.Atoi(mo)
			di, _ := strconv.Atoi(d)
			if mi >= 1 && mi <= 12 && di >= 1 && di <= 31 {
				out = append(out, Date{Year: yi, Month: time.Month(mi), Day: di, Text: m[0]})
			}
		}
	}
	return out
}

// A Span is a length of time a text gives: days (weeks as seven, hours as
// a twenty-fourth) or months.
type Span struct {
	Days, Months int
	Text         string
}

// Spans are the lengths of time t gives in calendar days, weeks or months
// (90 days, two weeks, 3个月, 两周: numerals read as Numerals does), the
// dates it writes aside.
func Spans(t string) []Span {
	var out []Span
	t = Numerals(EnglishNumbers(t))
	for _, re := range datePatterns { // 6月30日 is no six months
		t = re.ReplaceAllString(t, " ")
	}
	for _, m := range spanPattern.FindAllStringSubmatch(t, -1) {
		n, unit := m[1], strings.ToLower(m[3])
		if n == "" {
			n, unit = m[4], m[6]
		}
		v, err := strconv.Atoi(n)
		if err != nil { // a number word; another word reads as "", no number
			if v, err = strconv.Atoi(NumberWords[strings.ToLower(n)]); err != nil {
				continue
			}
		}
		switch {
		case strings.HasPrefix(unit, "day") || unit == "天" || unit == "日":
			out = append(out, Span{Days: v, Text: m[0]})
		case strings.HasPrefix(unit, "week") || unit == "周" || unit == "星期":
			out = append(out, Span{Days: 7 * v, Text: m[0]})
		case strings.HasPrefix(unit, "hour") || unit == "小时":
			if v > 0 && v%24 == 0 {
				out = append(out, Span{Days: v / 24, Text: m[0]})
			}
		default:
			out = append(out, Span{Months: v, Text: m[0]})
		}
	}
	return out
}

// Computed is the arithmetic that makes a date of the statement that no
// given text writes from one they write, moved by a span one of them
// gives, either way ("30 June 2025 − 90 days = 1 April 2025"); "" when
// there is none. A statement's date without a year takes the base's.
func Computed(d Date, given []string) string {
	var bases []Date
	var spans []Span
	for _, g := range given {
		for _, b := range Dates(g) {
			if b.Month == d.Month && b.Day == d.Day && (b.Year == d.Year || b.Year == 0 || d.Year == 0) {
				return "" // written, not computed
			}
			bases = append(bases, b)
		}
		spans = append(spans, Spans(g)...)
	}
	for _, b := range bases {
		// A year neither writes: 2001, no leap day, as the day of the month is what counts.
		from := time.Date(cmp.Or(b.Year, d.Year, 2001), b.Month, b.Day, 0, 0, 0, 0, time.UTC)
		for _, s := range spans {
			for _, sign := range []int{1, -1} {
				to := from.AddDate(0, sign*s.Months, sign*s.Days)
				if to.Month() == d.Month && to.Day() == d.Day && (d.Year == 0 || b.Year == 0 || to.Year() == d.Year) {
					return fmt.Sprintf("%s %s %s = %s", b.Text, map[int]string{1: "+", -1: "−"}[sign], s.Text, d.Text)
				}
			}
		}
	}
	return ""
}

// DatePart is the arithmetic (Computed) that makes a date of the statement
// whose day, month or year is value in unit (日, 月 or 年) from the given
// texts; "" when none does.
func DatePart(statement string, given []string, value, unit string) string {
	for _, d := range Dates(statement) {
		part := d.Day
		switch unit {
		case Unit("月"):
			part = int(d.Month)
		case "年":
			part = d.Year
		}
		if part != 0 && value == strconv.Itoa(part) {
			if a := Computed(d, given); a != "" {
				return a
			}
		}
	}
	return ""
}

// Arithmetic finds how terms make want: the fewest of two or more that sum
// to it (op "+"), else two whose difference it is (op "−", the larger
// first); idx nil when none do. The subsets of terms are enumerated: keep
// them few.
func Arithmetic(want float64, terms []float64) (idx []int, op string) {
	is := func(x float64) bool { return math.Abs(x-want) <= 1e-9*math.Max(1, math.Abs(want)) }
	best := 0
	for mask := 3; mask < 1<<len(terms); mask++ {
		n := bits.OnesCount(uint(mask))
		if n < 2 || best != 0 && n >= bits.OnesCount(uint(best)) {
			continue
		}
		sum := 0.0
		for k, v := range terms {
			if mask>>k&1 == 1 {
				sum += v
			}
		}
		if is(sum) {
			best = mask
		}
	}
	for k := range terms {
		if best>>k&1 == 1 {
			idx = append(idx, k)
		}
	}
	if idx != nil {
		return idx, "+"
	}
	for a := range terms {
		for b := range terms {
			if terms[a] > terms[b] && is(terms[a]-terms[b]) {
				return []int{a, b}, "−"
			}
		}
	}
	return nil, ""
}

// Product finds a rate and one or two counts whose product is want (60元 ×
// 5张 = 300元; $18 × 2 × 4 = $144): the rate's index, and the counts'; ok
// false when none make it. A count of 1 multiplies nothing and is left out.
func Product(want float64, rates, counts []float64) (rate int, factors []int, ok bool) {
	is := func(x float64) bool { return math.Abs(x-want) <= 1e-9*math.Max(1, math.Abs(want)) }
	for r, v := range rates {
		for a, x := range counts {
			if x == 1 || x == 0 {
				continue
			}
			if is(v * x) {
				return r, []int{a}, true
			}
			for b := a + 1; b < len(counts); b++ {
				if counts[b] != 1 && is(v*x*counts[b]) {
					return r, []int{a, b}, true
				}
			}
		}
	}
	return -1, nil, false
}
