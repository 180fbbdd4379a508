package offline

import (
	"strings"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// maxRecordRunes bounds a record: beyond it the lines are more likely a
// document than one record, and joining them would let a statement
// collect its words from unrelated lines.
const maxRecordRunes = 800

// record is a run of lines of a structured chunk that describe one thing.
type record struct {
	text     string // the lines as they are in the chunk, for the quote
	analysed string // what is analysed: the lines, or a table row keyed by its header
	units    int    // fields or lines in it
}

// recordSpans returns the analysed records of a structured chunk with more
// than one field, or nil when the chunk is prose.
func recordSpans(text string) []*span {
	recs := records(plaintext.StripControls(text))
	var out []*span
	for _, r := range recs {
		if r.units < 2 || utf8.RuneCountInString(r.analysed) > maxRecordRunes {
			continue
		}
		sp := analyzeContext(r.analysed) // its text is set below
		sp.text = r.text
		out = append(out, sp)
	}
	return out
}

type lineKind int

const (
	lineProse lineKind = iota
	lineBlank
	lineField    // Key: value (possibly several, ;-separated)
	lineQuestion // Q: ... / 问：...
	lineAnswer   // A: ... / 答：...
	lineTable    // | a | b |
	lineRule     // |---|---|
)

func classify(line string) lineKind {
	t := strings.TrimSpace(line)
	if t == "" {
		return lineBlank
	}
	if strings.HasPrefix(t, "|") && strings.Count(t, "|") >= 2 {
		if strings.Trim(t, "|-: \t") == "" {
			return lineRule
		}
		return lineTable
	}
	body := strings.TrimSpace(plaintext.LineMark.ReplaceAllString(t, ""))
	body = strings.NewReplacer("**", "", "__", "").Replace(body)
	for _, p := range faqQuestionMarks {
		if strings.HasPrefix(body, p) {
			return lineQuestion
		}
	}
	for _, p := range faqAnswerMarks {
		if strings.HasPrefix(body, p) {
			return lineAnswer
		}
	}
	if isField(body) {
		return lineField
	}
	return lineProse
}

// isField: a short key before a colon, then a value ("Fare: 480 Taka",
// "票价：480塔卡"); a sentence with a colon in its middle is not one.
func isField(s string) bool {
	i := strings.IndexAny(s, ":：")
	if i <= 0 || strings.TrimSpace(strings.TrimLeft(s[i:], ":：")) == "" {
		return false // a line that ends in a colon is a caption
	}
	key := strings.TrimSpace(s[:i])
	if key == "" || utf8.RuneCountInString(key) > 32 || strings.ContainsAny(key, ".!?。！？") {
		return false
	}
	// 06:30 is a time, not a key.
	if c := key[len(key)-1]; c >= '0' && c <= '9' {
		return false
	}
	if containsHan(key) {
		return utf8.RuneCountInString(key) <= 10
	}
	return len(strings.Fields(key)) <= 4
}

// records groups the lines of a structured text. A text is structured when
// at least two lines, and at least half of its lines with content, are
// fields, table rows or Q:/A: lines; otherwise it has no records.
func records(text string) []record {
	if !strings.ContainsAny(text, ":：|") {
		return nil
	}
	lines := strings.Split(text, "\n")
	kinds := make([]lineKind, len(lines))
	structured, content := 0, 0
	for i, l := range lines {
		kinds[i] = classify(l)
		switch kinds[i] {
		case lineBlank, lineRule:
		case lineProse:
			content++
		default:
			content++
			structured++
		}
	}
	if structured < 2 || 2*structured < content {
		return nil
	}
	var out []record
	var header []string
	var cur []string
	// heading are the field lines of a block before its first list item
	// ("Route: Dhaka to Sylhet"): they apply to every item below, and are
	// analysed with each (the quote is the item alone).
	var heading []string
	inList := false
	units := 0
	flush := func() {
		if len(cur) > 0 {
			t := strings.Join(cur, "\n")
			r := record{text: t, analysed: t, units: units}
			if inList && len(heading) > 0 {
				r.analysed = strings.Join(heading, "\n") + "\n" + t
				r.units += len(heading)
			}
			out = append(out, r)
		}
		cur, units = nil, 0
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch kinds[i] {
		case lineBlank:
			flush()
			heading, inList = nil, false
			continue
		case lineProse:
			// A sentence between records belongs to none: it is tested
			// as a sentence of its own.
			flush()
			continue
		case lineRule:
			continue
		case lineTable:
			flush()
			cells := tableCells(t)
			if header == nil || i+1 < len(lines) && kinds[i+1] == lineRule {
				header = cells
				continue
			}
			var b strings.Builder
			for k, c := range cells {
				if k > 0 {
					b.WriteString("; ")
				}
				if k < len(header) && header[k] != "" {
					b.WriteString(header[k] + ": ")
				}
				b.WriteString(c)
			}
			out = append(out, record{text: t, analysed: b.String(), units: len(cells)})
			continue
		case lineQuestion:
			flush()
		case lineField, lineAnswer:
			// A list item starts a record of its own; a line of fields
			// continues the record above it.
			if t != strings.TrimSpace(plaintext.LineMark.ReplaceAllString(t, "")) {
				if !inList {
					heading = cur
					cur, units = nil, 0
				}
				flush()
				inList = true
			}
		}
		header = nil
		cur = append(cur, t)
		units += 1 + strings.Count(t, ";") + strings.Count(t, "；")
	}
	flush()
	return out
}

func tableCells(row string) []string {
	parts := strings.Split(strings.Trim(strings.TrimSpace(row), "|"), "|")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// faqQuestionMarks and faqAnswerMarks open the lines of a Q/A pair.
var (
	faqQuestionMarks = words.List("faq_question_marks")
	faqAnswerMarks   = words.List("faq_answer_marks")
)
