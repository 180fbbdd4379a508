// Package records reads the structure of a retrieved chunk for the offline
// judge: its fields ("Key: value"), table rows and Q:/A: pairs grouped into
// records, and the cells and fields a statement may name.
package records

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/eval/offline/words"
)

// Record is a run of lines of a structured chunk that describe one thing.
type Record struct {
	Text     string // the lines as they are in the chunk, for the quote
	Analysed string // what is analysed: the lines, or a table row keyed by its header
	Units    int    // fields or lines in it
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

// Classify is the kind of a line.
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
	opens := func(p string) bool { return strings.HasPrefix(body, p) }
	switch {
	case slices.ContainsFunc(faqQuestionMarks, opens):
		return lineQuestion
	case slices.ContainsFunc(faqAnswerMarks, opens):
		return lineAnswer
	case IsField(body):
		return lineField
	}
	return lineProse
}

// IsField reports a field: a short key, a colon, a value ("票价：480塔卡").
func IsField(s string) bool {
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
	if strings.ContainsFunc(key, plaintext.IsHan) {
		return utf8.RuneCountInString(key) <= 10
	}
	return len(strings.Fields(key)) <= 4
}

// Records groups the lines of a structured text: one with at least two,
// and half its lines with content, fields, table rows or Q:/A: lines.
func Records(text string) []Record {
	if !strings.ContainsAny(text, ":：|") {
		return nil
	}
	lines := strings.Split(text, "\n")
	kinds := make([]lineKind, len(lines))
	structured, content := 0, 0
	for i, l := range lines {
		if kinds[i] = classify(l); kinds[i] != lineBlank && kinds[i] != lineRule {
			content++
			if kinds[i] != lineProse {
				structured++
			}
		}
	}
	if structured < 2 || 2*structured < content {
		return nil
	}
	var out []Record
	var header, cur []string
	// heading are the field lines before a block's first list item,
	// analysed with each item.
	var heading []string
	inList := false
	flush := func() {
		if len(cur) > 0 {
			t := strings.Join(cur, "\n")
			r := Record{Text: t, Analysed: t, Units: len(cur) + strings.Count(t, ";") + strings.Count(t, "；")}
			if inList && len(heading) > 0 {
				r.Analysed = strings.Join(heading, "\n") + "\n" + t
				r.Units += len(heading)
			}
			out = append(out, r)
		}
		cur = nil
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch kinds[i] {
		case lineBlank:
			flush()
			heading, inList = nil, false
			continue
		case lineProse:
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
			for k := range cells {
				if k < len(header) && header[k] != "" {
					cells[k] = header[k] + ": " + cells[k]
				}
			}
			out = append(out, Record{Text: t, Analysed: strings.Join(cells, "; "), Units: len(cells)})
			continue
		case lineQuestion:
			flush()
		case lineField, lineAnswer:
			// A list item starts a record; a line of fields continues one.
			if plaintext.LineMark.MatchString(t) {
				if !inList {
					heading, cur = cur, nil
				}
				flush()
				inList = true
			}
		}
		header = nil
		cur = append(cur, t)
	}
	flush()
	return out
}

// TableCells are the cells of a table row, trimmed.
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

// Field is a cell of a table or a "Key: value" field of a record, as the
// judge checks a statement that names it against its value alone.
type Field struct {
	Quote    string   // the line it is on, for the quote
	Analysed string   // what is analysed: the value read with its keys
	Label    string   // `cell (总监, 杭州)`, `field "开户行及账号"`
	Value    string   // the value as written
	Keys     []string // the keys a statement names it by: a cell's row and column, a field's key
	Mask     string   // the keys around the value: the record's keys, the table's caption and headers
	Whole    string   // the record or table row it is read with, for coverage
}

// continued joins to a field the pieces after it that are no field of their
// own: "53座大巴：半日1,500元；全日2,400元" is one field, whose value gives both
// prices; "A: 1; B: 2" two.
func continued(pieces []string) []string {
	var out []string
	for _, p := range pieces {
		if n := len(out); n > 0 && !IsField(strings.TrimSpace(p)) && IsField(strings.TrimSpace(out[n-1])) {
			out[n-1] += "；" + p
			continue
		}
		out = append(out, p)
	}
	return out
}

// Fields are the cells and fields of a structured chunk.
func Fields(text string) []Field {
	lines := strings.Split(plaintext.StripControls(text), "\n")
	kinds := make([]lineKind, len(lines))
	structured := 0
	for i, l := range lines {
		kinds[i] = classify(l)
		if kinds[i] == lineField || kinds[i] == lineTable {
			structured++
		}
	}
	if structured < 2 {
		return nil
	}
	var out []Field
	caption := ""
	var header []string
	var block []string // the current record's field lines, trimmed
	semi := func(r rune) bool { return r == ';' || r == '；' }
	flushFields := func() {
		if len(block) < 2 {
			block = nil
			return
		}
		// Other fields' values are no key: written here, they replace it.
		var keys []string
		for _, l := range block {
			for _, f := range strings.FieldsFunc(l, semi) {
				if k := strings.IndexAny(f, ":："); k > 0 {
					keys = append(keys, f[:k])
				}
			}
		}
		mask, whole := strings.Join(keys, "\n"), strings.Join(block, "\n")
		for _, l := range block {
			line := strings.TrimSpace(plaintext.LineMark.ReplaceAllString(l, ""))
			for _, f := range continued(strings.FieldsFunc(line, semi)) {
				f = strings.TrimSpace(f)
				if !IsField(f) {
					continue
				}
				k := strings.IndexAny(f, ":：")
				key := strings.TrimSpace(strings.Trim(f[:k], "*_"))
				val := strings.TrimSpace(strings.TrimLeft(f[k:], ":：")) // not empty: a field
				out = append(out, Field{Quote: f, Analysed: key + ": " + val, Label: fmt.Sprintf("field %q", key), Value: val,
					Keys: []string{key}, Mask: mask, Whole: whole})
			}
		}
		block = nil
	}
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch kinds[i] {
		case lineBlank:
			flushFields()
			continue
		case lineProse, lineQuestion, lineAnswer:
			flushFields()
			caption, header = t, nil
			continue
		case lineRule:
			continue
		case lineField:
			block = append(block, t)
			continue
		}
		// a table row
		flushFields()
		cells := tableCells(t)
		if header == nil || i+1 < len(lines) && kinds[i+1] == lineRule {
			header = cells
			continue
		}
		if len(cells) < 2 || cells[0] == "" {
			continue
		}
		mask := caption + "\n" + strings.Join(header, " ") + "\n" + cells[0]
		for k := 1; k < len(cells) && k < len(header); k++ {
			if cells[k] == "" {
				continue
			}
			value := cells[k]
			if u := headerUnit(header[k]); u != "" && unitlessCell.MatchString(value) {
				value += " " + u
			}
			for _, col := range splitKeys(header[k]) {
				out = append(out, Field{Quote: t, Analysed: caption + "\n" + cells[0] + " " + col + ": " + cells[k],
					Label: fmt.Sprintf("cell (%s, %s)", cells[0], col), Value: value, Keys: []string{cells[0], col}, Mask: mask, Whole: mask})
			}
		}
	}
	flushFields()
	return out
}

// unitlessCell is a cell that gives a number without its unit.
var unitlessCell = regexp.MustCompile(`^[0-9][0-9,.]*$`)

// headerUnit is the unit a header gives its column's numbers in brackets
// ("经理级（元/晚）", "Cap (USD)"), or "": one short word, as a note in
// brackets ("(excluding taxes)") is none.
func headerUnit(h string) string {
	open := strings.LastIndexAny(h, "(（")
	if open < 0 {
		return ""
	}
	_, size := utf8.DecodeRuneInString(h[open:])
	u, _, ok := strings.Cut(h[open+size:], ")")
	if !ok {
		u, _, ok = strings.Cut(h[open+size:], "）")
	}
	if u = strings.TrimSpace(u); !ok || u == "" || strings.ContainsAny(u, "0123456789 ") || utf8.RuneCountInString(u) > 8 {
		return ""
	}
	return u
}

// splitKeys are the keys a header cell lists: "北京/上海/深圳", "A, B". A
// slash in brackets is a unit's ("经理级（元/晚）"), not a list's.
func splitKeys(h string) []string {
	depth := 0
	parts := strings.FieldsFunc(h, func(r rune) bool {
		switch r {
		case '(', '（', '[', '【':
			depth++
		case ')', '）', ']', '】':
			depth = max(depth-1, 0)
		}
		return depth == 0 && (r == '/' || r == '、' || r == '／' || r == '|')
	})
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
