package calibrate

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
)

// The project's own enterprise-shaped pairs (testdata/SOURCE.md), embedded:
// their rows need no --datasets. Which were read to write mechanisms of
// the judge, and which are held out, is in testdata/SOURCE.md.
var (
	//go:embed testdata/enterprise_pairs.jsonl
	enterprisePairs []byte
	//go:embed testdata/enterprise_pairs_2.jsonl
	enterprisePairs2 []byte
	//go:embed testdata/enterprise_pairs_3.jsonl
	enterprisePairs3 []byte
	//go:embed testdata/enterprise_pairs_4.jsonl
	enterprisePairs4 []byte
	//go:embed testdata/enterprise_pairs_5.jsonl
	enterprisePairs5 []byte
	//go:embed testdata/enterprise_pairs_6.jsonl
	enterprisePairs6 []byte
	//go:embed testdata/enterprise_pairs_7.jsonl
	enterprisePairs7 []byte
	//go:embed testdata/enterprise_pairs_8.jsonl
	enterprisePairs8 []byte
	//go:embed testdata/enterprise_pairs_9.jsonl
	enterprisePairs9 []byte
	//go:embed testdata/enterprise_pairs_10.jsonl
	enterprisePairs10 []byte
	//go:embed testdata/enterprise_pairs_11.jsonl
	enterprisePairs11 []byte
	//go:embed testdata/enterprise_pairs_12.jsonl
	enterprisePairs12 []byte
)

// LoadEnterprise reads the first embedded set; the path is not used.
func LoadEnterprise(string) ([]Pair, error) { return readPairs(enterprisePairs) }

// LoadEnterprise2 reads the second embedded set; the path is not used.
func LoadEnterprise2(string) ([]Pair, error) { return readPairs(enterprisePairs2) }

// LoadEnterprise3 reads the third embedded set; the path is not used.
func LoadEnterprise3(string) ([]Pair, error) { return readPairs(enterprisePairs3) }

// LoadEnterprise4 reads the fourth embedded set; the path is not used.
func LoadEnterprise4(string) ([]Pair, error) { return readPairs(enterprisePairs4) }

// LoadEnterprise5 reads the fifth embedded set; the path is not used.
func LoadEnterprise5(string) ([]Pair, error) { return readPairs(enterprisePairs5) }

// LoadEnterprise6 reads the sixth embedded set; the path is not used.
func LoadEnterprise6(string) ([]Pair, error) { return readPairs(enterprisePairs6) }

// LoadEnterprise7 reads the seventh embedded set; the path is not used.
func LoadEnterprise7(string) ([]Pair, error) { return readPairs(enterprisePairs7) }

// LoadEnterprise8 reads the eighth embedded set; the path is not used.
func LoadEnterprise8(string) ([]Pair, error) { return readPairs(enterprisePairs8) }

// LoadEnterprise9 reads the ninth embedded set; the path is not used.
func LoadEnterprise9(string) ([]Pair, error) { return readPairs(enterprisePairs9) }

// LoadEnterprise10 reads the tenth embedded set; the path is not used.
func LoadEnterprise10(string) ([]Pair, error) { return readPairs(enterprisePairs10) }

// LoadEnterprise11 reads the eleventh embedded set; the path is not used.
func LoadEnterprise11(string) ([]Pair, error) { return readPairs(enterprisePairs11) }

// LoadEnterprise12 reads the twelfth embedded set; the path is not used.
func LoadEnterprise12(string) ([]Pair, error) { return readPairs(enterprisePairs12) }

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
