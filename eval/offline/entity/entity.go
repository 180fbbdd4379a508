// Package entity lists the entities of a text by surface patterns, the
// offline judge's stand-in for the context_entity_recall_entities task:
// times, dates, amounts with a currency; in English numbers with a unit,
// numbered things (bus 73), quoted titles, acronyms and runs of capitalised
// words not capitalised by position alone; in Chinese numbers with a measure
// word, quoted spans, Latin-script names and Han spans that end in a suffix
// of proper names (天宫院站, 招商银行). Entities are reported in NFKC form.
// What only meaning tells (a Chinese personal name) it misses on both sides
// of entity recall alike.
package entity

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/eval/offline/words"
	"golang.org/x/text/unicode/norm"
)

// Extract returns the distinct entities of text in the order they occur.
func Extract(text string) []string {
	// NFKC: full-width digits are the ASCII ones the patterns know. Valid
	// UTF-8: the Chinese spans map rune offsets back to bytes.
	text = plaintext.StripMarkup(norm.NFKC.String(strings.ToValidUTF8(text, "\uFFFD")))
	var spans []entitySpan
	add := func(patterns []entityPattern) {
		for _, p := range patterns {
			for _, m := range p.re.FindAllStringSubmatchIndex(text, -1) {
				if a, b := m[2*p.group], m[2*p.group+1]; a >= 0 && b > a {
					spans = append(spans, entitySpan{a, b, p.prio})
				}
			}
		}
	}
	add(commonPatterns)
	if strings.IndexFunc(text, plaintext.IsHan) >= 0 {
		add(zhPatterns)
		spans = append(spans, zhSuffixSpans(text)...)
	} else {
		add(enPatterns)
		spans = append(spans, enNameSpans(text)...)
	}
	// The most specific pattern wins an overlap, then the longer, the earlier.
	slices.SortStableFunc(spans, func(x, y entitySpan) int {
		return cmp.Or(cmp.Compare(x.prio, y.prio), cmp.Compare(y.end-y.start, x.end-x.start), cmp.Compare(x.start, y.start))
	})
	var kept []entitySpan
	for _, sp := range spans {
		if !slices.ContainsFunc(kept, func(k entitySpan) bool { return sp.start < k.end && k.start < sp.end }) {
			kept = append(kept, sp)
		}
	}
	slices.SortFunc(kept, func(x, y entitySpan) int { return cmp.Compare(x.start, y.start) })
	out := []string{}
	seen := map[string]bool{}
	for _, k := range kept {
		e := strings.TrimSpace(strings.Join(strings.Fields(text[k.start:k.end]), " "))
		key := eval.EntityKey(e)
		if key == "" || seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, e)
	}
	return out
}

type entitySpan struct{ start, end, prio int }

type entityPattern struct {
	re    *regexp.Regexp
	prio  int // lower wins an overlap
	group int // the submatch that is the entity (0: all of it)
}

var (
	units         = words.Alternatives("entity_units")
	currencyCodes = words.Alternatives("entity_currencies")
	months        = words.Alternatives("entity_months")
	numberedNouns = words.Alternatives("entity_numbered_nouns")
	zhUnits       = words.Alternatives("zh_entity_units")
)

var (
	commonPatterns = []entityPattern{
		{regexp.MustCompile(`\b\d{4}-\d{1,2}-\d{1,2}\b`), 0, 0},
		{regexp.MustCompile(`\b\d{1,2}/\d{1,2}/\d{2,4}\b`), 0, 0},
		{regexp.MustCompile(`(?i)\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[ap](?:\.m\.|m\b))?`), 0, 0},
		{regexp.MustCompile(`[$€£¥₹৳]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion|bn|m|k)\b)?`), 1, 0},
		{regexp.MustCompile(`\b\d[\d,]*(?:\.\d+)?\s?(?:` + currencyCodes + `)\b`), 1, 0},
	}
	enPatterns = []entityPattern{
		{regexp.MustCompile(`(?i)\b\d{1,2}\s?[ap](?:\.m\.|m\b)`), 0, 0},
		// 1 May 2024, 1st May, May 2024, May 1, 2024, May 1st.
		{regexp.MustCompile(`\b(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:` + months + `)\.?(?:,?\s+\d{4})?|(?:` + months + `)\.?\s+(?:\d{1,2}(?:st|nd|rd|th)?(?:,?\s+\d{4})?|\d{4}))\b`), 0, 0},
		{regexp.MustCompile(`\b(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)s?\b`), 2, 0},
		{regexp.MustCompile(`\b(?:1[89]|20)\d{2}\b`), 3, 0}, // a year alone
		{regexp.MustCompile(`\b\d[\d,]*(?:\.\d+)?(?:%|％|\s?°[CF]|\s?(?:` + units + `)\b)`), 1, 0},
		{regexp.MustCompile(`(?i)\b(?:` + numberedNouns + `)\s+(?:no\.?\s*)?[A-Z]?\d+(?:\.\d+)*[A-Z]?\b`), 2, 0},
		// Quoted titles: up to eight words in quotes, the first capitalised.
		{regexp.MustCompile(`["“]([A-Z][^"”\n]{0,60}?)["”]`), 1, 1},
		// Acronyms and codes: N29, NHS, COVID-19; not a lone "I" or "A".
		{regexp.MustCompile(`\b[A-Z][A-Z0-9]*[A-Z0-9](?:-\d+)?\b`), 4, 0},
	}
	zhPatterns = []entityPattern{
		{regexp.MustCompile(`\d{4}\s?年(?:\s?\d{1,2}\s?月(?:\s?\d{1,2}\s?[日号])?)?|\d{1,2}\s?月\s?\d{1,2}\s?[日号]`), 0, 0},
		{regexp.MustCompile(`\d{1,2}\s?[点時时](?:\d{1,2}分|半|整)?`), 0, 0},
		{regexp.MustCompile(`(?:周|星期|礼拜)[一二三四五六日天]`), 0, 0},
		{regexp.MustCompile(`\d+(?:\.\d+)?\s?(?:万|亿|千|百)?\s?(?:` + zhUnits + `)`), 1, 0},
		{regexp.MustCompile(`[一二三四五六七八九十两]+(?:号线|号)`), 1, 0},
		{regexp.MustCompile(`《[^《》\n]{1,30}》|「[^「」\n]{1,30}」|『[^『』\n]{1,30}』|“[^“”\n]{1,20}”`), 1, 0},
		// Latin-script names and codes ("iPhone", "k8s"; not "access").
		{regexp.MustCompile(`(?:[A-Z][A-Za-z0-9&.+\-]*|[a-z]+[A-Z0-9][A-Za-z0-9&.+\-]*)(?:\s+[A-Z0-9][A-Za-z0-9&.+\-]*)*`), 3, 0},
	}
)

// English: runs of capitalised words, connectors inside ("Bank of England").
var (
	enWordRe     = regexp.MustCompile(`[A-Za-z][A-Za-z'’\-]*|[.!?;:\n]|\S`)
	enConnectors = words.Set("entity_name_connectors")
)

func enNameSpans(text string) []entitySpan {
	toks := enWordRe.FindAllStringIndex(text, -1)
	var out []entitySpan
	sentenceStart := true
	i := 0
	for i < len(toks) {
		w := text[toks[i][0]:toks[i][1]]
		if strings.ContainsAny(w, ".!?;:\n") && len(w) == 1 {
			sentenceStart = true
			i++
			continue
		}
		if !isCapitalised(w) {
			r, _ := utf8.DecodeRuneInString(w)
			sentenceStart = sentenceStart && !unicode.IsLetter(r)
			i++
			continue
		}
		// A run of capitalised words, connectors inside it.
		j, last := i, i
		for j < len(toks) {
			if t := text[toks[j][0]:toks[j][1]]; isCapitalised(t) {
				last = j
			} else if !(enConnectors[t] && j > i) {
				break
			}
			j++
		}
		first := i
		if w == "The" {
			first++
		}
		// One word capitalised by position only is no name.
		if n := last - first + 1; n > 1 || n == 1 && !(sentenceStart && first == i) {
			out = append(out, entitySpan{toks[first][0], toks[last][1], 5})
		}
		sentenceStart = false
		i = last + 1
	}
	return out
}

// isCapitalised: w opens on a capital and is no lone "I" or "A".
func isCapitalised(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) && (n < len(w) || r != 'I' && r != 'A')
}

// Chinese proper-name suffixes, longest first (大学 before 学).
var zhSuffixes = words.List("zh_name_suffixes")

// zhStop are characters a name does not contain ("从天宫院站" is 天宫院站).
var zhStop = words.Runes("zh_name_stop")

// zhSuffixEnd are the one-character suffixes, where a name ends.
var zhSuffixEnd = words.Runes("zh_name_suffix_end")

// zhVerbs are verbs that come before a name ("填写公司全称", "前往天宫院站").
var zhVerbs = words.Set("zh_name_verbs")

// zhCommonNouns end in a suffix without being names.
var zhCommonNouns = words.Set("zh_common_nouns")

func zhSuffixSpans(text string) []entitySpan {
	var out []entitySpan
	rs := []rune(text)
	// Byte offsets of each rune, to return spans in bytes.
	off := make([]int, len(rs)+1)
	for i, r := range rs {
		off[i+1] = off[i] + utf8.RuneLen(r)
	}
	for i := 0; i < len(rs); i++ {
		for _, suf := range zhSuffixes {
			if !strings.HasPrefix(text[off[i]:], suf) {
				continue
			}
			end := i + utf8.RuneCountInString(suf)
			// Back to a function character, another name's end or six characters.
			start := i
			for start > 0 && i-start < 6 && plaintext.IsHan(rs[start-1]) && !zhStop[rs[start-1]] && !zhSuffixEnd[rs[start-1]] {
				start--
			}
			// A verb before the name is not part of it (填写|公司).
			for k := i - 2; k >= start; k-- {
				if zhVerbs[string(rs[k:k+2])] {
					start = k + 2
					break
				}
			}
			if name := string(rs[start:end]); start < i && !zhCommonNouns[name] {
				out = append(out, entitySpan{off[start], off[end], 2})
			}
			break
		}
	}
	return out
}
