package calibrate

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
)

// enterprisePairs are the project's own enterprise-shaped pairs
// (testdata/SOURCE.md): written after the offline judge's table, record,
// number and frame mechanisms and never used to write or tune them, so
// their row is held out. They are embedded: the row needs no --datasets.
//
//go:embed testdata/enterprise_pairs.jsonl
var enterprisePairs []byte

// LoadEnterprise reads the embedded pairs; the path is not used.
func LoadEnterprise(string) ([]Pair, error) {
	type row struct {
		Question   string   `json:"question"`
		Contexts   []string `json:"contexts"`
		Faithful   string   `json:"faithful"`
		Unfaithful string   `json:"unfaithful"`
	}
	var out []Pair
	sc := bufio.NewScanner(bytes.NewReader(enterprisePairs))
	for n := 1; sc.Scan(); n++ {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("enterprise pairs line %d: %w", n, err)
		}
		out = append(out, Pair{Question: r.Question, Contexts: r.Contexts, Faithful: r.Faithful, Unfaith: r.Unfaithful})
	}
	return out, sc.Err()
}
