package offline

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
)

// A count the answer gives of the items it lists after it ("四份文件：A、B、C
// 和D", "five items: A, B, C, D and E") is its own arithmetic, as its sums
// are: no context need state the number, and the items are checked as
// words. A count that is not the number it lists is left to the number
// checks.

// bracketed text holds no items ("ISO 9001 (or equivalent)").
var bracketed = regexp.MustCompile(`\([^()]*\)|（[^（）]*）`)

// ownCount: q counts the items the answer lists after a colon that follows
// it, read in the statement's normalised text (三 as 3).
func ownCount(answer string, q quantity) bool {
	t := norm.EnglishNumbers(norm.Numerals(norm.Quantities(plaintext.StripMarkup(answer))))
	i := strings.Index(t, q.text)
	if i < 0 {
		return false
	}
	rest := t[i+len(q.text):]
	c := strings.IndexAny(rest, ":：")
	if c < 0 || c > 40 || strings.ContainsAny(rest[:c], "。.！!？?；;，,\n") {
		return false
	}
	_, n := utf8DecodeColon(rest[c:])
	n = listItems(rest[c+n:])
	return n > 1 && strconv.Itoa(n) == q.value
}

// listConflict: q counts the items the statement lists where the sentence
// lists another number of them after its colon ("穿戴以下用品：A、B、C、D"
// against "5样：A、B、C、D和E"). A list the answer goes on with in another
// statement may draw on other sentences, and is left to them.
func listConflict(st *span, q quantity, cs *span) (string, bool) {
	if q.date || !ownCount(st.text, q) {
		return "", false
	}
	c := strings.LastIndexAny(cs.text, ":：")
	if c < 0 {
		return "", false
	}
	_, w := utf8DecodeColon(cs.text[c:])
	if n := listItems(cs.text[c+w:]); n > 1 && strconv.Itoa(n) != q.value {
		return fmt.Sprintf("statement counts %s where the context lists %d", q.text, n), true
	}
	return "", false
}

// utf8DecodeColon is the width of the colon that opens s.
func utf8DecodeColon(s string) (string, int) {
	if strings.HasPrefix(s, "：") {
		return "：", len("：")
	}
	return ":", 1
}

// listItems counts the items of a list from its start to its end: in
// Chinese, parts between 、 (or ；, when it has them) up to 。 or a line
// or clause that does not go on with 以及, 和 or 及; in English, parts
// between commas (or semicolons) up to the line that ends a sentence, as
// the statements' split drops ", and". A last part joined by 和, 以及, 及 or
// "and" is two items.
func listItems(list string) int {
	list = bracketed.ReplaceAllString(list, "")
	if containsHan(list) {
		for _, j := range []string{"以及", "和", "及"} {
			list = strings.ReplaceAll(list, "\n"+j, "、"+j)
			list = strings.ReplaceAll(list, "，"+j, "、"+j)
		}
		list, _, _ = strings.Cut(list, "\n")
		list, _, _ = strings.Cut(list, "。")
		sep := "、"
		if parts := strings.Split(list, "；"); len(parts) > 1 {
			sep = "；"
		} else {
			list, _, _ = strings.Cut(list, "，")
		}
		return countParts(strings.Split(list, sep), func(p string) (own, joined bool) {
			for _, j := range []string{"以及", "和", "及"} {
				if strings.HasPrefix(p, j) {
					return true, false
				}
				if strings.Contains(p, j) {
					joined = true
				}
			}
			return false, joined
		})
	}
	var lines []string
	for _, l := range strings.Split(list, "\n") {
		l = strings.TrimSpace(l)
		lines = append(lines, l)
		if strings.HasSuffix(l, ".") || strings.HasSuffix(l, "?") || strings.HasSuffix(l, "!") {
			break
		}
	}
	list = strings.TrimRight(strings.Join(lines, ", "), ".?! ")
	if s, _, found := strings.Cut(list, ". "); found {
		list = s
	}
	sep := ","
	if strings.Contains(list, ";") {
		sep = ";"
	}
	parts := strings.Split(list, sep)
	// A comma between digits is a number's ("$10,000").
	for k := len(parts) - 1; k > 0; k-- {
		if a, b := parts[k-1], parts[k]; sep == "," && a != "" && b != "" && isDigit(a[len(a)-1]) && isDigit(b[0]) {
			parts[k-1] += "," + b
			parts = append(parts[:k], parts[k+1:]...)
		}
	}
	return countParts(parts, func(p string) (own, joined bool) {
		if strings.HasPrefix(p, "and ") || strings.HasPrefix(p, "or ") {
			return true, false
		}
		return false, strings.Contains(p, " and ")
	})
}

// countParts counts the non-empty parts, the last two when joined says
// its words join two items and no earlier part opened with a joiner.
func countParts(parts []string, join func(p string) (own, joined bool)) int {
	n := 0
	last := ""
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			n++
			last = p
		}
	}
	if own, joined := join(last); !own && joined {
		n++
	}
	return n
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }
