package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/estimate"
	"github.com/ragscope/ragscope/eval/offline"
	"github.com/ragscope/ragscope/eval/offline/words"
	"github.com/ragscope/ragscope/internal/app"
	"github.com/ragscope/ragscope/internal/clidoc"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/internal/termtext"
	"github.com/ragscope/ragscope/tools/calibrate"
)

// calibrateGroups are the flags calibrate takes from run (by run's own
// code, so the judge calibrated is the one run would build); not the
// metric choice: calibration is of faithfulness.
var calibrateGroups = []clidoc.FlagGroup{
	{Title: "calibration", Flags: []string{"datasets", "judge", "limit", "yes"}},
	{Title: "judge (--judge llm)", Flags: slices.DeleteFunc(append(slices.Clone(runFlagGroups[0].Flags), runFlagGroups[1].Flags...), func(f string) bool {
		return slices.Contains([]string{"judge", "metrics", "criteria", "strictness", "ac-weights", "fc-mode", "ns-mode", "history-support", "no-n", "offline"}, f)
	})},
	{Title: "cache & store", Flags: []string{"db", "no-cache", "cache-only"}},
	{Title: "cost", Flags: []string{"prices", "config"}},
}

// calibrateFlags are calibrate's own flags beside run's.
type calibrateFlags struct {
	runFlags
	dir   string
	judge string
	limit int
}

// calibrateCommand measures a judge's pairwise faithfulness accuracy on
// the public calibration datasets. The offline judge is held to targets
// (exit 3 when one is missed, so its thresholds cannot drift below them
// unnoticed); an LLM judge is shown beside what the RAGAS paper published.
func (c *cli) calibrateCommand() *cobra.Command {
	var f calibrateFlags
	cmd := &cobra.Command{
		Use:   "calibrate",
		Short: "Measure the offline or the configured LLM judge on public labelled datasets",
		Long: "Measure a judge's pairwise accuracy (the faithful answer must score higher faithfulness than the unfaithful one; ties count half) " +
			"on the datasets below, found under --datasets, and print the table.\n\n" +
			"--judge offline (the default): the offline lexical judge, each set under several answer constructions (given, declarative, " +
			"framed as \"答案是X。\"/\"The answer is X.\", bare X); its thresholds are chosen on the tuned rows, the held-out rows show overfitting. " +
			"Exit 3 when a row misses its target or a tuned row falls below its previous figure; sets other than halueval, wikieval_sample10 and rgb/zh_fact are skipped when absent.\n" +
			"--judge llm: the judge run builds from the same flags, settings file and environment, on the first --limit pairs of each set. " +
			"The estimate of its calls, tokens and cost is printed before anything is sent, and the run starts when you answer y (--yes: without asking; " +
			"without a terminal and without --yes it is refused, exit 2). The calls go through the cache, so a repeated calibration is free, " +
			"and the run is stored: `ragscope open RUN` shows each verdict. Exit 3 when some pairs could not be judged, 1 when the judge failed everything.\n" + calibrate.DescribeSets(),
		Example: `ragscope calibrate --datasets ../shared/datasets
OPENAI_API_KEY=sk-... ragscope calibrate --judge llm --limit 20 --model gpt-4o-mini --datasets ../shared/datasets
ragscope calibrate --judge llm --limit 20 --base-url http://localhost:11434/v1 --model qwen2.5:14b --yes`,
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			if len(pos) > 0 {
				return usageHint(c.stderr, cmd, "unexpected argument %q (did you mean --datasets %s?)", pos[0], pos[0])
			}
			if f.limit < 0 {
				return usageHint(c.stderr, cmd, "--limit %d: give the pairs per set to judge, 1 or more (0: all)", f.limit)
			}
			switch f.judge {
			case "offline":
				return calibrateOffline(f.dir, f.limit, f.OfflineLexicon, c.stdout, c.stderr)
			case "llm":
				ctx, stop := interruptible()
				defer stop()
				code, err := c.calibrateLLM(ctx, &f, cmd.InOrStdin())
				if err != nil {
					return failed(c.stderr, "ragscope calibrate", err)
				}
				return code
			}
			return usageHint(c.stderr, cmd, "--judge %q: give offline or llm", f.judge)
		}),
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.StringVar(&f.dir, "datasets", "../shared/datasets", "directory holding halueval/, wikieval_sample10/, rgb/ (and, for --judge offline, wikieval_pairwise/ and faithbench/)")
	_ = cmd.MarkFlagDirname("datasets")
	fs.StringVar(&f.judge, "judge", "offline", "the judge to calibrate: offline (the lexical judge) or llm (the judge of run's flags)")
	fs.IntVar(&f.limit, "limit", 0, "judge the first N pairs of each set (0: all); the same pairs every time, so a repeated or larger calibration reuses the cache")
	fs.BoolVar(&f.yes, "yes", false, "with --judge llm: start without asking after the estimate (needed without a terminal)")
	addRunFlagsOf(&f.runFlags, fs, calibrateGroups[1:])
	_ = cmd.RegisterFlagCompletionFunc("judge", cobra.FixedCompletions([]string{"offline", "llm"}, cobra.ShellCompDirectiveNoFileComp))
	registerRunCompletions(cmd)
	clidoc.SetGroupedHelp(cmd, calibrateGroups)
	return cmd
}

func calibrateOffline(dir string, limit int, lexicon string, stdout, stderr io.Writer) int {
	start := time.Now()
	var opts []offline.Option
	if lexicon != "" {
		lx, err := words.ReadLexicon(lexicon)
		if err != nil {
			return failed(stderr, "ragscope calibrate", exit.Usagef("--offline-lexicon: %v", err))
		}
		opts = append(opts, offline.WithLexicon(lx))
	}
	rep, err := calibrate.Offline(dir, limit, opts...)
	if err == nil {
		err = calibrate.WriteReport(stdout, rep)
	}
	if err != nil {
		return failed(stderr, "ragscope calibrate", err)
	}
	fmt.Fprintf(stdout, "\nthresholds: support %.2f, question echo weight %.2f, chosen on the tuned rows only; measured in %s with `ragscope calibrate --datasets %s`\n",
		offline.SupportThreshold, offline.QuestionEchoWeight, time.Since(start).Round(time.Millisecond), sanitize.Line(dir))
	fmt.Fprintln(stdout, "accuracy: (wins + ties/2) / pairs; a pair with an answer without statements is lost. faithbench: balanced accuracy of the verdict \"every statement supported\" against worst-label Consistent/Benign, ROC-AUC of the score; no target.")
	missed := rep.Missed()
	for _, r := range missed {
		fmt.Fprintf(stderr, "ragscope calibrate: %s (%s): accuracy %.3f is %s\n", sanitize.Line(r.Dataset), r.Construction, r.Accuracy, r.Shortfall())
	}
	if len(missed) > 0 {
		return exit.Failures
	}
	return exit.OK
}

// calibrateLLM judges the calibration pairs with the LLM judge of run's
// flags: estimate, confirmation, the run through the cache, the table.
func (c *cli) calibrateLLM(ctx context.Context, f *calibrateFlags, stdin io.Reader) (int, error) {
	cfg := &f.Config
	cfg.Metrics = string(eval.Faithfulness)
	if cfg.UseOffline() {
		return 0, exit.Usagef("--judge llm needs an endpoint, as run does: give --base-url (or OPENAI_BASE_URL, or base_url in the settings file) and the key in OPENAI_API_KEY; --judge offline calibrates the offline judge")
	}
	if err := cfg.Validate(); err != nil {
		return 0, err
	}
	sets, err := calibrate.LoadSets(f.dir, f.limit)
	if err != nil {
		return 0, exit.UsageError{Err: err}
	}
	var names []string
	for _, ls := range sets {
		names = append(names, ls.Name)
	}
	cfg.Dataset = "calibration: " + strings.Join(names, ", ")
	if f.limit > 0 {
		cfg.Dataset += fmt.Sprintf(" (first %d pairs each)", f.limit)
	}
	cfg.Preloaded = app.CalibrationData(cfg.Dataset, sets)
	st, err := store.Open(cfg.DB, store.OpenOptions{Mode: store.Hold, Role: "calibrate", Stderr: c.stderr})
	if err != nil {
		return 0, err
	}
	defer st.Close()
	s, err := app.Prepare(cfg, st, c.stderr)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	est, err := s.Estimate(ctx)
	if err != nil {
		return 0, err
	}
	// Said before anything is sent: what the calibration will cost.
	if err := est.WriteText(c.stdout, fmt.Sprintf("%s: %d pairs, 2 answers each", cfg.Dataset, cfg.Preloaded.Count/2)); err != nil {
		return 0, err
	}
	calls := est.Calls.Chat + est.Calls.Embeddings
	fmt.Fprintf(c.stdout, "\nestimate: %d chat and %d embedding calls to send (%d answered by the cache), %d prompt + %d completion tokens, %s\n\n",
		est.Calls.Chat, est.Calls.Embeddings, est.CacheHits, est.Tokens.Prompt, est.Tokens.Completion, estimate.USD(est.CostUSD))
	switch {
	case calls == 0:
		fmt.Fprintln(c.stderr, "ragscope calibrate: every call is in the cache: nothing is sent")
	case f.yes:
		fmt.Fprintln(c.stderr, "ragscope calibrate: starting without asking (--yes)")
	case !isTerminal(stdin):
		return 0, exit.Usagef("calibrating %s sends %d calls (%s) and there is no terminal to ask on; nothing was sent. Pass --yes to start anyway, or --limit N for fewer pairs",
			s.Judge.Info().Name, calls, estimate.USD(est.CostUSD))
	default:
		fmt.Fprintf(c.stderr, "ragscope calibrate: send %d calls to %s (%s)? [y/N] ", calls, s.Judge.Info().Name, estimate.USD(est.CostUSD))
		termtext.Flush(c.stderr)
		if !answeredYes(stdin) {
			return 0, exit.Usagef("not confirmed; nothing was sent")
		}
	}
	fmt.Fprintf(c.stderr, "ragscope calibrate: %s\n", s.Banner)
	start := time.Now()
	results, run, err := s.Calibrate(ctx, sets)
	if err != nil {
		fmt.Fprintf(c.stderr, "ragscope calibrate: %s\n", errText(err))
		if run != nil {
			fmt.Fprintf(c.stderr, "ragscope calibrate: the pairs judged before it stopped are kept in run %s\n", run.ID)
		}
		return exitCode(err), nil
	}
	info := run.Info()
	if err := calibrate.WriteLLMReport(c.stdout, s.Judge.Info().Name, results); err != nil {
		return 0, err
	}
	fmt.Fprintf(c.stdout, "\nrun %s in %s: %d calls sent, %d cache hits, cost %s; each verdict: ragscope open %s\n",
		info.ID, time.Since(start).Round(time.Millisecond), info.Calls.Sent(), info.Calls.CacheHits, sanitize.Line(info.CostSentence()), info.ID)
	if info.Cancelled {
		fmt.Fprintln(c.stderr, "ragscope calibrate: interrupted; the accuracies are of the pairs judged before, and calibrating again reuses them from the cache")
		return exit.Interrupted, nil
	}
	failed := 0
	for _, r := range results {
		failed += r.Failed
	}
	if failed > 0 {
		fmt.Fprintf(c.stderr, "ragscope calibrate: %d pairs could not be judged (see the list); they are left out of the accuracies\n", failed)
		return exit.Failures, nil
	}
	return exit.OK, nil
}

// isTerminal: r is a terminal (stdin: a question can be asked on it; with
// stdout one too, the interface can run).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// answeredYes reads one line: y or yes, in any case, is yes; anything
// else, an empty line or the end of the input, is no.
func answeredYes(r io.Reader) bool {
	line, _ := bufio.NewReader(r).ReadString('\n')
	a := strings.TrimSpace(line)
	return strings.EqualFold(a, "y") || strings.EqualFold(a, "yes")
}
