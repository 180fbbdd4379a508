// Command slowjudge serves eval/fakejudge on loopback with a delay before
// every answer, so that scripts/sshbytes.sh can hold a live run open for as
// long as a real endpoint would (the offline judge has no delay, and a run
// that ends in a second says nothing about what a live screen costs). With
// -dataset it writes a dataset of N distinct samples instead and exits.
//
//	go run ./scripts/slowjudge -dataset 2000 > samples.jsonl
//	go run ./scripts/slowjudge -delay 25ms -url-file url.txt
//
// Serving, it writes the base URL to -url-file once it listens and stops on
// SIGTERM or SIGINT.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ragscope/ragscope/eval/fakejudge"
)

func main() {
	delay := flag.Duration("delay", 25*time.Millisecond, "delay before every answer")
	urlFile := flag.String("url-file", "", "write the base URL here once serving")
	dataset := flag.Int("dataset", 0, "write a dataset of N samples to stdout and exit")
	flag.Parse()
	if *dataset > 0 {
		if err := writeDataset(*dataset); err != nil {
			fmt.Fprintln(os.Stderr, "slowjudge:", err)
			os.Exit(1)
		}
		return
	}
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = *delay })
	defer srv.Close()
	if *urlFile != "" {
		// Written to a temporary name and renamed, so the script polling
		// for the file never reads half a URL.
		tmp := *urlFile + ".tmp"
		if err := os.WriteFile(tmp, []byte(srv.BaseURL()+"\n"), 0o600); err != nil {
			fmt.Fprintln(os.Stderr, "slowjudge:", err)
			os.Exit(1)
		}
		if err := os.Rename(tmp, *urlFile); err != nil {
			fmt.Fprintln(os.Stderr, "slowjudge:", err)
			os.Exit(1)
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
}

// writeDataset writes n samples, each distinct (its question and answer
// carry its number), with two chunks and a reference, so every metric runs.
func writeDataset(n int) error {
	enc := json.NewEncoder(os.Stdout)
	for i := range n {
		err := enc.Encode(map[string]any{
			"id":         fmt.Sprintf("s%05d", i),
			"user_input": fmt.Sprintf("What does clause %d of the policy say about the taxpayer number?", i),
			"response":   fmt.Sprintf("Clause %d says the taxpayer number stays the same after the change.", i),
			"retrieved_contexts": []string{
				fmt.Sprintf("Clause %d: the taxpayer identification number does not change on conversion.", i),
				"Registration takes effect from the month after it is accepted.",
			},
			"reference": fmt.Sprintf("Under clause %d the taxpayer number is kept.", i),
		})
		if err != nil {
			return err
		}
	}
	return nil
}
