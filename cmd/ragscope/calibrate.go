package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/eval/offline"
	"github.com/ragscope/ragscope/sanitize"
)

// calibrateCommand measures the offline judge's pairwise faithfulness
// accuracy on the public calibration datasets and prints the Markdown table
// the README shows. It exits 3 when a dataset misses its target, so the
// thresholds cannot drift below them unnoticed.
func (c *cli) calibrateCommand() *cobra.Command {
	var dir string
	var sets strings.Builder
	for _, cs := range offline.CalibrationSets {
		fmt.Fprintf(&sets, "\n  %-45s target %.2f", cs.Path, cs.Target)
	}
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure the offline judge on public labelled datasets",
		Long: "Measure the offline judge's pairwise accuracy (the faithful answer must score higher faithfulness than the unfaithful one; ties count half) " +
			"on the datasets below, found under --datasets, and print the table; exit 3 when one misses its target.\n" + sets.String(),
		Example:           "ragscope calibrate --datasets ../shared/datasets",
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			if len(pos) > 0 {
				return usageHint(c.stderr, cmd, "unexpected argument %q (did you mean --datasets %s?)", pos[0], pos[0])
			}
			return calibrate(dir, c.stdout, c.stderr)
		}),
	}
	cmd.Flags().StringVar(&dir, "datasets", "../shared/datasets", "directory holding halueval/, wikieval_sample10/ and rgb/")
	_ = cmd.MarkFlagDirname("datasets")
	return cmd
}

func calibrate(dir string, stdout, stderr io.Writer) int {
	start := time.Now()
	results, err := offline.Calibrate(dir)
	if err != nil {
		fmt.Fprintf(stderr, "ragscope calibrate: %s\n", errText(err))
		return exitFatal
	}
	if err := offline.WriteTable(stdout, results); err != nil {
		fmt.Fprintf(stderr, "ragscope calibrate: %s\n", errText(err))
		return exitFatal
	}
	fmt.Fprintf(stdout, "\nthresholds: support %.2f, question echo weight %.2f; measured in %s with `ragscope calibrate --datasets %s`\n",
		offline.SupportThreshold, offline.QuestionEchoWeight, time.Since(start).Round(time.Millisecond), sanitize.Line(dir))
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
