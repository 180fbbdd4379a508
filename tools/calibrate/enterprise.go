package calibrate

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
)

// The project's own enterprise-shaped pairs (testdata/SOURCE.md), embedded:
// their rows need no --datasets. Which were read to write mechanisms of
// the judge, and which are held out, is in testdata/SOURCE.md.
//
//go:embed testdata/enterprise_pairs*.jsonl
var enterpriseFiles embed.FS

// Enterprise is the loader of the project's n-th set (from 1); the path
// it is given is not used.
func Enterprise(n int) func(string) ([]Pair, error) {
	return func(string) ([]Pair, error) {
		b, err := enterpriseFiles.ReadFile(enterpriseFile(n))
		if err != nil {
			return nil, err
		}
		return readPairs(b)
	}
}

func enterpriseFile(n int) string {
	if n == 1 {
		return "testdata/enterprise_pairs.jsonl"
	}
	return fmt.Sprintf("testdata/enterprise_pairs_%d.jsonl", n)
}

// enterpriseRead are the sets whose failures were read to find
// mechanisms of the judge (testdata/SOURCE.md); the others are held out.
var enterpriseRead = map[int]bool{1: true, 3: true, 5: true, 6: true, 7: true, 8: true, 47: true, 48: true, 49: true, 54: true, 69: true, 70: true}

// enterpriseTargets are the sets with a target of their own.
var enterpriseTargets = map[int]float64{1: 0.85, 2: 0.85}

// enterpriseCount is how many sets are embedded: a new set is a new file.
func enterpriseCount() int {
	files, err := enterpriseFiles.ReadDir("testdata")
	if err != nil {
		panic(err) // embedded at build time
	}
	return len(files)
}

// EnterpriseName is the n-th set's name in the calibration's tables.
func EnterpriseName(n int) string {
	if n == 1 {
		return "ragscope/enterprise"
	}
	return fmt.Sprintf("ragscope/enterprise-%d", n)
}

func readPairs(data []byte) ([]Pair, error) {
	type row struct {
		Question   string   `json:"question"`
		Contexts   []string `json:"contexts"`
		Faithful   string   `json:"faithful"`
		Unfaithful string   `json:"unfaithful"`
	}
	var out []Pair
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("enterprise pairs line %d: %w", n, err)
		}
		out = append(out, Pair{Question: r.Question, Contexts: r.Contexts, Faithful: r.Faithful, Unfaith: r.Unfaithful})
	}
	return out, sc.Err()
}
