package offline

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/norm"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/internal/memo"
)

// Lists. A count the answer gives of the items it lists after it ("四份文件：
// A、B、C和D", "five items: A, B, C, D and E") is its own arithmetic, as its
// sums are: no context need state the number, and the items are checked as
// words. A list the context gives one item a sentence (cut at semicolons or
// lines, or opening on a list marker) after a sentence with a colon is read
// by item: a statement that lists items after its colon is checked item by
// item against it.

// bracketed text holds no items ("ISO 9001 (or equivalent)").
var bracketed = regexp.MustCompile(`\([^()]*\)|（[^（）]*）`)

// answerTexts are answers as they are analysed (normalised), for ownCount.
var answerTexts = memo.New[string](analysisCacheSize)

// ownCount: q counts the items the answer lists after a colon that follows
// it, read in the statement's normalised text (三 as 3).
func ownCount(answer string, q quantity) bool {
	t := answerTexts.Get(answer, normalised) // read once per quantity
	i := strings.Index(t, q.text)
	if i < 0 {
		return false
	}
	between, list, ok := cutColon(t[i+len(q.text):], false)
	if !ok || len(between) > 40 || strings.ContainsAny(between, "。.！!？?；;，,\n") {
		return false
	}
	n := listItems(list)
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
	_, list, _ := cutColon(cs.text, true) // none after no colon
	if n := listItems(list); n > 1 && strconv.Itoa(n) != q.value {
		return fmt.Sprintf("statement counts %s where the context lists %d", q.text, n), true
	}
	return "", false
}

// cutColon cuts s around its first colon (its last, when last), either
// width; ok is false when it has none.
func cutColon(s string, last bool) (before, after string, ok bool) {
	i := strings.IndexAny(s, ":：")
	if last {
		i = strings.LastIndexAny(s, ":：")
	}
	if i < 0 {
		return s, "", false
	}
	_, w := utf8.DecodeRuneInString(s[i:])
	return s[:i], s[i+w:], true
}

// listItems counts the items of a list (listParts).
func listItems(list string) int { return len(listParts(list)) }

// listParts are the items of a list from its start to its end: in
// Chinese, parts between 、 (or ；, when it has them) up to 。 or a line
// or clause that does not go on with 以及, 和 or 及; in English, parts
// between commas (or semicolons) up to the line that ends a sentence, as
// the statements' split drops ", and". A last part joined by 和, 以及, 及 or
// "and" is two items.
func listParts(list string) []string {
	list = bracketed.ReplaceAllString(list, "")
	if containsHan(list) {
		for _, j := range hanJoins {
			list = strings.ReplaceAll(list, "\n"+j, "、"+j)
			list = strings.ReplaceAll(list, "，"+j, "、"+j)
		}
		list, _, _ = strings.Cut(list, "\n")
		list, _, _ = strings.Cut(list, "。")
		sep := "、"
		if strings.Contains(list, "；") {
			sep = "；"
		} else {
			list, _, _ = strings.Cut(list, "，")
		}
		return joinedLast(strings.Split(list, sep), hanJoins)
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
	list, _, _ = strings.Cut(list, ". ")
	sep := ","
	if strings.Contains(list, ";") {
		sep = ";"
	}
	parts := strings.Split(list, sep)
	// A comma between digits is a number's ("$10,000").
	for k := len(parts) - 1; k > 0; k-- {
		if a, b := parts[k-1], parts[k]; sep == "," && a != "" && b != "" && unicode.IsDigit(rune(a[len(a)-1])) && unicode.IsDigit(rune(b[0])) {
			parts[k-1] += "," + b
			parts = append(parts[:k], parts[k+1:]...)
		}
	}
	return joinedLast(parts, englishJoins)
}

// The words that join the last item of a list to the one before it.
var (
	hanJoins     = []string{"以及", "和", "及"}
	englishJoins = []string{"and", "or"}
)

// joinedLast are the trimmed non-empty parts, the last cut in two at its
// first joiner; a last part that opens with one ("and D", "以及D") is one
// item without it.
func joinedLast(parts, joins []string) []string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	last := &out[len(out)-1]
	pad := " " // around an English joiner
	if containsHan(*last) {
		pad = ""
	}
	for _, j := range joins {
		if strings.HasPrefix(*last, j+pad) {
			*last = strings.TrimSpace((*last)[len(j):])
			return out
		}
	}
	for _, j := range joins {
		if a, b, ok := strings.Cut(*last, pad+j+pad); ok && strings.TrimSpace(a) != "" && strings.TrimSpace(b) != "" {
			*last = strings.TrimSpace(a)
			return append(out, strings.TrimSpace(b))
		}
	}
	return out
}

// listMarker opens an item of a list: 1. 1) (1) （1） ① 一、 - • and the like.
var listMarker = regexp.MustCompile(`^(?:\d{1,2}[.)、]|[（(]\d{1,2}[)）]|[（(][一二三四五六七八九十]{1,2}[)）]|[一二三四五六七八九十]{1,2}、|[①-⑳]|[-*•·])\s*`)

// maxItemBytes bounds an item of a list: a longer piece is a clause or a
// paragraph of its own (3.1 Every passenger lift must ...).
const maxItemBytes = 90

// markItems marks, on each sentence with a colon, how many of the
// sentences after it are the items of its list: each cut from the one
// before at a semicolon or opening on a list marker, short, and no field
// ("Deadline: 30 November") of its own; the list ends with the item that
// ends a sentence. Two items at least.
func markItems(ss []string, afterSemicolon []bool, spans []*span) {
	for i := 0; i+2 < len(ss); i++ {
		if !strings.ContainsAny(ss[i], ":：") {
			continue
		}
		j := i + 1
		for j < len(ss) && (afterSemicolon[j] || listMarker.MatchString(ss[j])) && len(ss[j]) <= maxItemBytes && !strings.ContainsAny(ss[j], ":：") {
			j++
			if strings.HasSuffix(ss[j-1], "。") {
				break
			}
		}
		if n := j - i - 1; n >= 2 {
			spans[i].items = n
			i = j - 1
		}
	}
}

// listItemFound is the least coverage of a statement's item by a
// context's item for it to be found there.
const listItemFound = 0.5

// listVerdict decides a statement that lists items after its colon
// against a context list of them (markItems). Supported when every item
// is one of the list's (the least coverage listItemFound, with its
// numbers), the words before its colon do not negate the list's lead-in,
// and a count they give is the list's (or the list's without its items of
// some cases only). Not supported when an item matches nothing in the list
// nor any sentence; a conflict when an item's numbers differ from its
// match's, or the count from the list's. ok is false when no list holds two
// of its items, or an item of some cases only is listed without its
// condition (the sentences decide).
func listVerdict(st, q *span, sents []*span) (Evidence, bool) {
	if !slices.ContainsFunc(sents, func(cs *span) bool { return cs.items > 0 }) {
		return Evidence{}, false // no list to read: most contexts
	}
	leadIn, list, _ := cutColon(st.text, false)
	parts := listParts(list) // none after no colon
	head := analyze(leadIn)
	count, counted := statedCount(head, leadIn)
	// An English colon before clauses ("ran more efficiently: its PUE was
	// 1.21, compared with ...") lists nothing unless it counts them.
	if len(parts) < 2 || !st.hasHan && !counted {
		return Evidence{}, false
	}
	items := make([]*span, len(parts))
	for k, p := range parts {
		items[k] = analyze(p)
	}
	type match struct {
		at  int // the context item's sentence, -1 for none
		cov float64
	}
	bestLead, bestFound := -1, 0
	var best []match
	for i, lead := range sents {
		if lead.items == 0 || !itemsFollow(sents, i) {
			continue
		}
		ms, found := make([]match, len(items)), 0
		for k, it := range items {
			ms[k] = match{at: -1}
			// The lead's own text after its colon may be the first item
			// ("须携带（1）本人有效身份证件").
			for j := i; j <= i+lead.items; j++ {
				if cov := coverage(it, nil, sents[j], fewBigrams(it)); cov > ms[k].cov {
					ms[k] = match{at: j, cov: cov}
				}
			}
			if ms[k].cov >= listItemFound {
				found++
			}
		}
		if found > bestFound {
			bestLead, bestFound, best = i, found, ms
		}
	}
	if bestFound < 2 {
		return Evidence{}, false
	}
	lead := sents[bestLead]
	ev := Evidence{Quote: lead.text, From: bestLead, Also: -1}
	for k, m := range best {
		if m.cov < listItemFound {
			if slices.ContainsFunc(sents, func(cs *span) bool { return coverage(items[k], nil, cs, fewBigrams(items[k])) >= SupportThreshold }) {
				return Evidence{}, false // said elsewhere: the sentences decide
			}
			ev.Reason = fmt.Sprintf("statement lists %q, which the context's list after %q does not have", parts[k], clip(lead.text))
			return ev, true
		}
		if conditional.MatchString(sents[m.at].text) && !conditional.MatchString(parts[k]) {
			return Evidence{}, false // an item of some cases only: the sentences decide
		}
		for _, x := range items[k].quants {
			if !hasQuantity(sents[m.at], x) {
				ev.Quote, ev.From, ev.Coverage = sents[m.at].text, m.at, m.cov
				return ev.conflict(DetectorNumber, fmt.Sprintf("statement lists %s where the context's item gives %q", x.text, clip(sents[m.at].text))), true
			}
		}
	}
	if _, _, ok := negationConflict(head, lead); ok {
		return Evidence{}, false // the lead-in denies what the list is for
	}
	for _, x := range head.quants {
		k := slices.IndexFunc(lead.quants, func(y quantity) bool { return y.unit == x.unit })
		if k >= 0 && !hasQuantity(lead, x) && !ownCount(cmp.Or(st.answer, st.text), x) {
			ev.Coverage = 1
			return ev.conflict(DetectorNumber, fmt.Sprintf("statement says %s where the context gives %s", x.text, lead.quants[k].text)), true
		}
	}
	// A count of them is the list's, or its count without the items it
	// makes conditional ("(vans only)", "年满60周岁者另需提供…").
	if all, firm := listCounts(lead, sents[bestLead+1:bestLead+1+lead.items]); counted && count != all && count != firm {
		ev.Coverage = 1
		return ev.conflict(DetectorNumber, fmt.Sprintf("statement counts %d where the context lists %d", count, all)), true
	}
	var found []string
	for _, m := range best {
		found = append(found, strconv.Quote(clip(sents[m.at].text)))
	}
	ev.Verdict, ev.Coverage = 1, 1
	ev.Reason = fmt.Sprintf("context lists after %q each item the statement lists: %s", clip(lead.text), strings.Join(found, ", "))
	return ev, true
}

// itemsFollow: the sentences after lead i are its items, in order. A
// window on the sentences (residualSupport's one, supportAbout's own) may
// end before them or skip some.
func itemsFollow(sents []*span, i int) bool {
	for j := i + 1; j <= i+sents[i].items; j++ {
		if j >= len(sents) || sents[j] != sents[j-1].next {
			return false
		}
	}
	return true
}

// statedCount is the number the lead-in of a statement's list gives, the
// last it has ("A car needs four items", "共四项") or the number word it is
// ("Three").
func statedCount(head *span, text string) (int, bool) {
	for k := len(head.quants) - 1; k >= 0; k-- {
		if q := head.quants[k]; !q.date {
			n, err := strconv.Atoi(q.value)
			return n, err == nil
		}
	}
	if v, ok := norm.NumberWords[strings.ToLower(strings.TrimSpace(text))]; ok {
		n, err := strconv.Atoi(v)
		return n, err == nil
	}
	return 0, false
}

// conditional marks an item of a list that applies only in some cases.
var conditional = regexp.MustCompile(`(?i)\b(?:only|if|where|when|unless|except)\b|仅|只|另需|如需|若|除`)

// listCounts are how many items the list has, the lead's own text after
// its colon included when it has one, and how many of them hold without
// a condition.
func listCounts(lead *span, items []*span) (all, firm int) {
	count := func(text string) {
		all++
		if !conditional.MatchString(text) {
			firm++
		}
	}
	for _, it := range items {
		count(it.text)
	}
	if _, tail, _ := cutColon(lead.text, true); plaintext.HasContent(tail) {
		count(tail) // not appended: items is a window on the caller's sentences
	}
	return all, firm
}
