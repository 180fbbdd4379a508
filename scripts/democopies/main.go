// Command democopies writes N samples to stdout by cycling a JSONL dataset
// (the demo set by default), the way the offline benchmark's demoCopies
// does: every copy after the first ends each of its texts with a word
// naming the copy, so no per-text cache can serve a copy from an earlier
// one and every sample costs what a distinct sample of a real dataset
// costs. The word is letters only (a number would feed the number
// detector) and trails the text, so the scores stay the original's.
//
//	go run ./scripts/democopies -n 10000 > data.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
)

func main() {
	n := flag.Int("n", 10000, "samples to write")
	in := flag.String("in", "testdata/demo.jsonl", "dataset to cycle (JSONL)")
	flag.Parse()
	if err := run(*in, *n); err != nil {
		fmt.Fprintln(os.Stderr, "democopies:", err)
		os.Exit(1)
	}
}

func run(in string, n int) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var rows []map[string]any
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			return fmt.Errorf("%s:%d: %w", in, i+1, err)
		}
		rows = append(rows, m)
	}
	if len(rows) == 0 {
		return fmt.Errorf("%s: no samples", in)
	}
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := 0; i < n; i++ {
		src := rows[i%len(rows)]
		copyNo := i / len(rows)
		out := make(map[string]any, len(src))
		for k, v := range src {
			out[k] = v
			if copyNo == 0 {
				continue
			}
			word := copyWord(copyNo)
			switch x := v.(type) {
			case string:
				if x != "" {
					if k == "id" {
						out[k] = x + "-" + word
					} else {
						out[k] = x + " " + word
					}
				}
			case []any:
				ys := make([]any, len(x))
				for j, e := range x {
					if s, ok := e.(string); ok && s != "" {
						ys[j] = s + " " + word
					} else {
						ys[j] = e
					}
				}
				out[k] = ys
			}
		}
		if err := enc.Encode(out); err != nil {
			return err
		}
	}
	return w.Flush()
}

// copyWord spells n in base 26 after a "zq" no demo text contains.
func copyWord(n int) string {
	var b []byte
	for ; n > 0; n /= 26 {
		b = append([]byte{byte('a' + n%26)}, b...)
	}
	return "zq" + string(b)
}
