package report

import (
	"encoding/json"
	"io"

	"github.com/ragscope/ragscope/eval"
)

// WriteSampleJSON writes one result as the JSON report writes each of its
// samples (the result's fields and its diagnosis), indented on its own:
// what the TUI copies for a sample. Its diagnosis follows levels.
func WriteSampleJSON(w io.Writer, r *eval.Result, levels Levels) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(newReportSample(r, levels))
}
