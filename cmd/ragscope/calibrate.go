package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/ragscope/ragscope/eval/offline"
	"github.com/ragscope/ragscope/sanitize"
)

// runCalibrate measures the offline judge's pairwise faithfulness accuracy
// on the public calibration datasets and prints the Markdown table the
// README shows. It exits non-zero when a dataset misses its target, so the
// thresholds cannot drift below them unnoticed.
func runCalibrate(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("ragscope calibrate", flag.ContinueOnError)
	fs.SetOutput(flagOutput(stderr))
	dir := fs.String("datasets", "../shared/datasets", "directory holding halueval/, wikieval_sample10/ and rgb/")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: ragscope calibrate [--datasets DIR]\n\n"+
			"Measures the offline judge's pairwise accuracy (the faithful answer must score higher\n"+
			"faithfulness than the unfaithful one; ties count half) on:\n")
		for _, cs := range offline.CalibrationSets {
			fmt.Fprintf(stderr, "  %-45s target %.2f\n", cs.Path, cs.Target)
		}
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ragscope calibrate: unexpected argument %q (did you mean --datasets %s?)\n", fs.Arg(0), sanitize.Line(fs.Arg(0)))
		return exitUsage
	}
	start := time.Now()
	results, err := offline.Calibrate(*dir)
	if err != nil {
		fmt.Fprintf(stderr, "ragscope calibrate: %s\n", errText(err))
		return exitFatal
	}
	if err := offline.WriteTable(stdout, results); err != nil {
		fmt.Fprintf(stderr, "ragscope calibrate: %s\n", errText(err))
		return exitFatal
	}
	fmt.Fprintf(stdout, "\nthresholds: support %.2f, question echo weight %.2f; measured in %s with `ragscope calibrate --datasets %s`\n",
		offline.SupportThreshold, offline.QuestionEchoWeight, time.Since(start).Round(time.Millisecond), sanitize.Line(*dir))
	missed := 0
	for _, r := range results {
		if !r.Passed() {
			missed++
			fmt.Fprintf(stderr, "ragscope calibrate: %s: accuracy %.3f is below its target %.2f\n", sanitize.Line(r.Dataset), r.Accuracy, r.Target)
		}
	}
	if missed > 0 {
		return exitFailures
	}
	return exitOK
}
