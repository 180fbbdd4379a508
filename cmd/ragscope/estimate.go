package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/internal/app"
	"github.com/ragscope/ragscope/internal/clidoc"
	"github.com/ragscope/ragscope/internal/exit"
)

// estimateGroups are the flags estimate takes from run: those that decide
// which calls a run sends and how they are priced (run's groups up to the
// cache and the store); the output flags of run have no meaning for an
// estimate. The capacity of the slice of run's makes append copy it.
var estimateGroups = append(runFlagGroups[:4:4], clidoc.FlagGroup{Title: "output", Flags: []string{"json", "prices", "config"}})

// estimateCommand is `ragscope estimate`: what a run would cost, without
// sending anything.
func (c *cli) estimateCommand() *cobra.Command {
	var (
		f      runFlags
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "estimate DATASET",
		Short: "Say what a run would cost: judge calls after cache hits, tokens and price, sending nothing",
		Long: `Plan the run that ` + "`ragscope run`" + ` with the same flags would make and print, per metric, the judge calls it would send after cache hits, their prompt tokens (counted with the model's tokenizer where one is known), the completion tokens past runs of the same prompts suggest, and their price. Nothing is sent and nothing is written: the cache is only read.

Prices come from a built-in, dated table; prices.json in the config directory (or --prices FILE, or $RAGSCOPE_PRICES) adds models or overrides them:
  {"date": "2026-01-31", "models": {"my-model": {"prompt": 0.5, "completion": 1.5}}}
in US dollars per million tokens.

Exit status: 0 estimated, 1 fatal error, 2 bad usage or input.`,
		Example: `ragscope estimate testdata/demo.jsonl
ragscope estimate --model gpt-4o-mini --json data.jsonl
ragscope estimate --resume latest`,
		ValidArgsFunction: completeDataset,
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			if len(pos) > 1 || (len(pos) == 0 && f.Resume == "") {
				return usageHint(c.stderr, cmd, "give exactly one DATASET, e.g. ragscope estimate testdata/demo.jsonl")
			}
			if len(pos) == 1 {
				f.Dataset = pos[0]
			}
			ctx, stop := interruptible()
			defer stop()
			err := checkSampleFlags(cmd.Flags())
			if err == nil {
				err = c.estimate(ctx, &f, asJSON)
			}
			if err != nil {
				return failed(c.stderr, "ragscope estimate", err)
			}
			return exit.OK
		}),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	// The flags are run's own, registered by run's code: an estimate of
	// other settings than the run's would be an estimate of another run.
	addRunFlagsOf(&f, fs, estimateGroups)
	fs.BoolVar(&asJSON, "json", false, "print the estimate as one JSON object")
	registerRunCompletions(cmd)
	clidoc.SetGroupedHelp(cmd, estimateGroups)
	return cmd
}

func (c *cli) estimate(ctx context.Context, f *runFlags, asJSON bool) error {
	if err := f.Validate(); err != nil {
		return err
	}
	st, closeStore, err := app.OpenForEstimate(f.DB)
	if err != nil {
		return err
	}
	defer closeStore()
	f.Stream = true // an estimate keeps no sample: 100k of them need no memory
	// A price table that does not load is said before the dataset is read.
	if _, err := app.Prices(&f.Config); err != nil {
		return err
	}
	s, err := app.Prepare(&f.Config, st, c.stderr)
	if err != nil {
		return err
	}
	defer s.Close()
	est, err := s.Estimate(ctx)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(c.stdout, est)
	}
	return est.WriteText(c.stdout, f.Dataset)
}
