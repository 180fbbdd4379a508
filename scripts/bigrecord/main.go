// Command bigrecord writes one dataset record of about -mib MiB to stdout,
// for measuring the memory a big record takes (scripts/bigrecord.sh). Its
// bulk is the demo set's chunks and answers, cycled, in one of these shapes:
//
//	context  one retrieved chunk holds it (a whole document pasted as a chunk)
//	chunks   chunks of 64 KiB (a retriever returning many long passages)
//	answer   the answer holds it (a generator that ran on)
//
//	go run ./scripts/bigrecord -mib 15 -shape chunks > big.jsonl
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
	mib := flag.Int("mib", 15, "size of the record in MiB (about)")
	shape := flag.String("shape", "chunks", "where the bulk is: context, chunks or answer")
	in := flag.String("in", "testdata/demo.jsonl", "dataset whose texts are cycled (JSONL)")
	flag.Parse()
	// A little under the size asked: the JSON around the texts, and the
	// escapes of quotes in them, make up the rest.
	if err := run(*in, *shape, *mib<<20-32<<10); err != nil {
		fmt.Fprintln(os.Stderr, "bigrecord:", err)
		os.Exit(1)
	}
}

// record is a sample in RAGAS's column names, the demo set's.
type record struct {
	ID        string   `json:"id"`
	Question  string   `json:"user_input"`
	Answer    string   `json:"response"`
	Contexts  []string `json:"retrieved_contexts"`
	Reference string   `json:"reference,omitempty"`
}

func run(in, shape string, size int) error {
	f, err := os.Open(in)
	if err != nil {
		return err
	}
	defer f.Close()
	var texts []string
	var first record
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s: %v", in, err)
		}
		if first.Question == "" {
			first = record{ID: "big", Question: r.Question, Answer: r.Answer, Contexts: r.Contexts, Reference: r.Reference}
		}
		texts = append(texts, r.Answer)
		texts = append(texts, r.Contexts...)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(texts) == 0 {
		return fmt.Errorf("%s: no texts", in)
	}
	next := 0
	fill := func(n int) string {
		var b strings.Builder
		for b.Len() < n {
			b.WriteString(texts[next%len(texts)])
			b.WriteString(" ")
			next++
		}
		return b.String()
	}
	rec := first
	switch shape {
	case "context":
		rec.Contexts = append([]string{fill(size)}, rec.Contexts...)
	case "chunks":
		rec.Contexts = nil
		for n := 0; n < size; n += 64 << 10 {
			rec.Contexts = append(rec.Contexts, fill(64<<10))
		}
	case "answer":
		rec.Answer = fill(size)
	default:
		return fmt.Errorf("-shape %q: give context, chunks or answer", shape)
	}
	w := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return err
	}
	return w.Flush()
}
