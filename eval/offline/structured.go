package offline

import (
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"github.com/ragscope/ragscope/eval/offline/records"
)

// maxRecordRunes bounds a record: longer is likelier a document.
const maxRecordRunes = 800

// recordSpans returns the analysed records of a structured chunk with more
// than one field, or nil when the chunk is prose.
func recordSpans(text string) []*span {
	var out []*span
	for _, r := range records.Records(plaintext.StripControls(text)) {
		if r.Units < 2 || utf8.RuneCountInString(r.Analysed) > maxRecordRunes {
			continue
		}
		sp := analyzeContext(r.Analysed) // its text is set below
		sp.text = r.Text
		out = append(out, sp)
	}
	return out
}
