package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ragscope/ragscope/internal/app"
	"github.com/ragscope/ragscope/internal/check"
	"github.com/ragscope/ragscope/internal/clidoc"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/runreport"
	"github.com/ragscope/ragscope/internal/store"
)

// runFlags are the flags of `ragscope run`: the run's settings and what
// the command does with them.
type runFlags struct {
	app.Config
	headless bool
	detach   bool
	ascii    bool
	config   string
	yes      bool // run even when the estimate exceeds --confirm-over (headless)
	judge    string
}

// keyFlag is --api-key's value; from says where the key was read (the
// flag, $OPENAI_API_KEY, a profile's variable), for a refused key's hint.
type keyFlag struct{ key, from *string }

func (k keyFlag) String() string {
	if k.key == nil {
		return ""
	}
	return *k.key
}

func (k keyFlag) Set(v string) error {
	*k.key, *k.from = v, "--api-key"
	return nil
}

func (keyFlag) Type() string { return "string" }

// setKeyFrom sets fs's --api-key to key, read from the variable env.
func setKeyFrom(fs *pflag.FlagSet, key, env string) {
	if kf, ok := fs.Lookup("api-key").Value.(keyFlag); ok {
		*kf.key, *kf.from = key, "$"+env
	}
}

// addRunFlags defines the flags of run (and check, which shares the judge
// settings) on fs, in the order of their groups in the help (runFlagGroups).
func addRunFlags(f *runFlags, fs *pflag.FlagSet) {
	c := &f.Config
	fs.SortFlags = false
	// judge
	fs.StringVar(&f.judge, "judge", os.Getenv("RAGSCOPE_JUDGE"), "a named judge profile of the settings file (see ragscope judge); flags given here still win")
	_ = fs.SetAnnotation("judge", profileAnnotation, []string{"true"})
	fs.StringVar(&c.BaseURL, "base-url", os.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible API base URL, e.g. http://localhost:11434/v1")
	fs.Var(keyFlag{&c.APIKey, &c.KeyFrom}, "api-key", "API key; prefer the environment variable: flags show in the process list")
	fs.StringVar(&c.APIType, "api-type", "openai", "API flavour: openai or azure")
	fs.StringVar(&c.APIVersion, "api-version", "", "Azure API version")
	fs.StringVar(&c.Model, "model", cmp.Or(os.Getenv("RAGSCOPE_MODEL"), "gpt-4o-mini"), "judge chat model")
	fs.StringVar(&c.EmbeddingModel, "embedding-model", cmp.Or(os.Getenv("RAGSCOPE_EMBEDDING_MODEL"), "text-embedding-3-small"), "embedding model for answer relevancy")
	fs.StringVar(&c.EmbeddingURL, "embedding-base-url", os.Getenv("RAGSCOPE_EMBEDDING_BASE_URL"), "embeddings endpoint when --base-url has none; same API key")
	fs.IntVar(&c.Dimensions, "embedding-dimensions", 0, "embedding dimensions (0: the model's default)")
	fs.StringVar(&c.EmbedFormat, "embedding-format", "float", "encoding of the embeddings the endpoint returns: float or base64")
	fs.StringVar(&c.ResponseFormat, "response-format", "", "how the judge is held to JSON: json_schema, json_object or text (default: json_schema, stepping down to json_object, then text, when the endpoint refuses it; remembered per endpoint and model)")
	fs.StringVar(&c.Reasoning, "reasoning", "auto", "the judge model's thinking: auto (the server's default), off or on (sends the switch each server family reads); reasoning is always kept apart from the answer")
	fs.IntVar(&c.MaxTokens, "max-tokens", app.DefaultMaxTokens, "largest completion budget of a judge call: a reply cut at the token limit is asked again with twice the budget, up to this, then ends as truncated")
	fs.Var(number(&c.Temperature), "temperature", "judge temperature for extraction and verdicts (always sent; 0 or more)")
	fs.IntVar(&c.Strictness, "strictness", 3, "questions generated per sample for answer relevancy")
	fs.BoolVar(&c.NoN, "no-n", false, "send answer-relevancy draws as separate requests instead of one request with n")
	fs.StringVar(&c.Metrics, "metrics", "all", "comma-separated: faithfulness,answer_relevancy,context_precision,context_recall,context_utilization,answer_similarity,answer_correctness,factual_correctness,context_entity_recall,noise_sensitivity; all is the first four")
	fs.StringVar(&c.Criteria, "criteria", "", "a FILE of your own criteria (YAML or JSON, see docs/criteria.md), each scored under its name beside --metrics")
	fs.StringVar(&c.ACWeights, "ac-weights", "0.75,0.25", "answer_correctness weights of factuality (F1 of TP/FP/FN) and answer similarity: two non-negative numbers, not both 0")
	fs.StringVar(&c.FCMode, "fc-mode", "f1", "factual_correctness score: f1 (of precision and recall), precision (answer claims the reference entails) or recall (reference claims the answer entails)")
	fs.StringVar(&c.NSMode, "ns-mode", "relevant", "noise_sensitivity score: relevant (incorrect answer statements backed by a relevant chunk) or irrelevant (backed only by irrelevant chunks); lower is better")
	fs.StringVar(&c.HistorySupport, "history-support", "chunks", "in a conversation, what backs a statement its turn's chunks do not: chunks (an earlier turn's retrieved chunks count, the user's words do not), conversation (both count) or none (only the turn's own chunks)")
	passFlag(fs, &c.Pass)
	fs.StringVar(&c.Lang, "lang", "auto", "prompt language: auto (per sample), en or zh")
	fs.StringVar(&c.PromptsDir, "prompts", os.Getenv("RAGSCOPE_PROMPTS"), "directory of prompt template overrides (<task>.<lang>.tmpl)")
	fs.BoolVar(&c.Offline, "offline", false, "use the offline lexical judge (default when no endpoint or key is configured)")
	fs.StringVar(&c.OfflineLexicon, "offline-lexicon", "", "a team's word lists for the offline judge, read with its own: FILE of lines \"noncommittal: PHRASE\" (an evasion) and \"same: A = B\" (A read as B)")
	fs.IntVar(&c.Concurrency, "concurrency", 16, "judge requests in flight")
	fs.DurationVar(&c.Timeout, "request-timeout", 60*time.Second, "timeout of one request attempt")
	fs.IntVar(&c.MaxRetries, "max-retries", 6, "retries on 429, 5xx, timeouts, connection errors and malformed replies")
	fs.DurationVar(&c.MaxRetryAfter, "max-retry-after", 2*time.Minute, "longest pause a call waits for when the endpoint asks (Retry-After); a longer one fails the call, saying so")
	fs.IntVar(&c.RPM, "rpm", 0, "cap on judge requests per minute per endpoint (0: none)")
	fs.IntVar(&c.TPM, "tpm", 0, "cap on judge tokens per minute per endpoint, estimated before sending (0: none)")
	fs.Var(byteSize(&c.MaxReplyBytes), "max-reply-bytes", "largest judge reply read, e.g. 8MiB (default 8MiB; embeddings replies may be 128KiB larger per text)")
	// dataset
	fs.StringVar(&c.Mapping, "map", "", "column mapping, e.g. question=q,answer=resp,contexts=docs,reference=gold,id=uid; in a trace file the fields name span attributes, and llm=NAME, retriever=NAME pick spans by name or kind")
	fs.StringVar(&c.Sheet, "sheet", "", "worksheet of an Excel (.xlsx) dataset: its NAME or its number N from 1 (default: the first sheet with the columns needed)")
	fs.BoolVar(&c.SkipInvalid, "skip-invalid", false, "skip invalid records (reported) instead of stopping at the first")
	fs.Var(byteSize(&c.MaxRecordBytes), "max-record-bytes", "largest dataset record (JSONL line, JSON element, CSV, Parquet or xlsx row, YAML record) loaded, e.g. 64MiB (default 16MiB)")
	fs.Var(positiveInt(&c.Sample), "sample", "evaluate N samples of the dataset chosen at random by --seed (all of them when it has N or fewer); a later full run reuses their calls from the cache")
	fs.Uint64Var(&c.Seed, "seed", app.DefaultSampleSeed, "the seed that chooses the --sample subset: the same seed, the same samples")
	// cache & store
	fs.StringVar(&c.DB, "db", "", dbUsage)
	fs.BoolVar(&c.NoCache, "no-cache", false, "neither read nor write the judge-call cache")
	fs.BoolVar(&c.CacheOnly, "cache-only", false, "replay from the cache without the network; uncached calls end as cache_miss")
	fs.StringVar(&c.Resume, "resume", "", "continue an interrupted run (RUN id or latest) into the same run record")
	// output & interface
	fs.BoolVar(&f.headless, "headless", false, "evaluate without the TUI: progress and summary on stderr, report to --out")
	fs.StringVar(&c.Out, "out", "", "write the report (--format) to FILE (headless default: stdout)")
	fs.StringVar(&c.Format, "format", runreport.FormatJSON, "report written to --out or stdout: json, github (workflow annotations; with $GITHUB_STEP_SUMMARY, a Markdown summary appended to it), jsonl (one sample per line) or html (one self-contained page)")
	fs.BoolVar(&f.detach, "detach", false, "submit the run to 'ragscope serve' on the same database, print its id and exit")
	fs.StringVar(&c.LogFile, "log", "", "write a log to FILE (the TUI never writes behind its own back)")
	asciiFlag(fs, &f.ascii)
	fs.StringVar(&f.config, "config", "", "settings file (default $XDG_CONFIG_HOME/ragscope/config.json)")
	// CI gate
	fs.Var(listFlag(&c.FailUnder, ""), "fail-under", "exit 4 when a metric's mean is worse than X (below it; for noise_sensitivity, where lower is better, above it): METRIC=X[,METRIC=X...] (metric names or f, ar, cp, cr, cu, as, ac, fc, er, ns, or a --criteria name); repeatable")
	fs.Var(listFlag(&c.FailUnderSample, ""), "fail-under-sample", "exit 4 when more than --max-failing samples score worse than X (for noise_sensitivity: above X): METRIC=X[,METRIC=X...]; repeatable")
	fs.Var(listFlag(&c.FailUnderConversation, ""), "fail-under-conversation", "exit 4 when a conversation has a turn that scores worse than X (its minimum over the turns is below X; for noise_sensitivity its maximum above X), naming the conversation and its first failing turn; --max-failing does not apply: METRIC=X[,METRIC=X...]; repeatable")
	fs.StringVar(&c.MaxFailing, "max-failing", "0", "samples allowed below the per-sample thresholds, and allowed to fail to score on a gated metric: N or P%")
	fs.StringVar(&c.JUnit, "junit", "", "write a JUnit XML report to FILE: a testcase per sample and metric, and one per gate")
	fs.StringVar(&c.Baseline, "baseline", "", "compare with a stored run (RUN id or prefix; latest: the newest run finished before this one, of the same dataset if any) or a JSON report FILE.json; samples match by id, else by content. Alone it only prints the comparison; --max-drop and --max-regressed gate on it")
	fs.Var(listFlag(&c.MaxDrop, "METRIC=D"), "max-drop", "exit 4 when a metric's mean over the samples shared with --baseline is more than D below the baseline's: METRIC=D[,METRIC=D...]; repeatable")
	fs.StringVar(&c.MaxRegressed, "max-regressed", "", "exit 4 when more shared samples than N (or P% of them) fell by more than --regress-margin from --baseline on some metric: N or P%")
	fs.StringVar(&c.RegressMargin, "regress-margin", "0.1", "how far a sample's score may fall from --baseline before it counts as regressed")
	// cost
	fs.StringVar(&c.Prices, "prices", os.Getenv("RAGSCOPE_PRICES"), "price table FILE (JSON, US dollars per million tokens) over the built-in one (default: prices.json in the config directory)")
	fs.Var(number(&c.ConfirmOver), "confirm-over", "ask before starting a run whose estimate (ragscope estimate) exceeds X US dollars; headless, refuse with exit 2 unless --yes (0: never ask)")
	fs.BoolVar(&f.yes, "yes", false, "start the run even when its estimate exceeds --confirm-over (headless)")
	noteEnv(fs)
}

// addRunFlagsOf defines on fs those of run's flags that groups name,
// with run's own definitions: a command that shares run's settings reads
// and defaults them as run does.
func addRunFlagsOf(f *runFlags, fs *pflag.FlagSet, groups []clidoc.FlagGroup) {
	all := pflag.NewFlagSet("run", pflag.ContinueOnError)
	addRunFlags(f, all)
	for _, g := range groups {
		for _, name := range g.Flags {
			if fl := all.Lookup(name); fl != nil {
				fs.AddFlag(fl)
			}
		}
	}
}

// runFlagGroups are the headings of run's and check's flags in their help.
var runFlagGroups = []clidoc.FlagGroup{
	{Title: "judge", Flags: []string{"judge", "base-url", "api-key", "model", "embedding-model", "reasoning", "metrics", "criteria", "lang", "offline"}},
	{Title: "judge (advanced)", Flags: []string{"api-type", "api-version", "embedding-base-url", "embedding-dimensions", "embedding-format",
		"response-format", "max-tokens", "temperature", "strictness", "ac-weights", "fc-mode", "ns-mode", "history-support", "no-n",
		"offline-lexicon", "prompts", "concurrency", "request-timeout", "max-retries", "max-retry-after", "rpm", "tpm", "max-reply-bytes"}},
	{Title: "dataset", Flags: []string{"map", "sheet", "skip-invalid", "max-record-bytes", "sample", "seed"}},
	{Title: "cache & store", Flags: []string{"db", "no-cache", "cache-only", "resume"}},
	{Title: "output & interface", Flags: []string{"headless", "out", "format", "detach", "log", "ascii", "config", "pass"}},
	{Title: "cost", Flags: []string{"prices", "confirm-over", "yes"}},
	{Title: "CI gate", Flags: []string{"fail-under", "fail-under-sample", "fail-under-conversation", "max-failing", "junit", "baseline", "max-drop", "max-regressed", "regress-margin"}},
}

// passUsage is the help of every command's --pass.
const passUsage = "pass levels of the diagnosis, the score colours and the table's marks: METRIC=X[,METRIC=X...] (metric names or f, ar, cp, cr, cu, as, ac, fc, er, ns); a score below X fails (noise_sensitivity: above X); unnamed metrics pass at 0.5; a run records its levels, which its report and open use unless --pass is given; repeatable"

// passFlag adds --pass (the pass levels, report.ParseLevels) to fs.
func passFlag(fs *pflag.FlagSet, p *string) { fs.Var(listFlag(p, ""), "pass", passUsage) }

// dbUsage is the help of every command's --db.
const dbUsage = "cache and run-store database (default $XDG_CACHE_HOME/ragscope/ragscope.db)"

// runCommand is `ragscope run`.
func (c *cli) runCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:   "run DATASET",
		Short: "Evaluate a dataset (JSONL, JSON, CSV, YAML, Parquet) in the terminal interface, or headless",
		Long: `Evaluate every sample of DATASET with the judge: in the terminal interface, or with --headless a progress line and a summary on stderr and the JSON report on stdout (or --out FILE).

Flags win over their environment variables, which win over the settings file (--config, else $RAGSCOPE_CONFIG, else $XDG_CONFIG_HOME/ragscope/config.json), which wins over the defaults.

Exit status: 0 all scored, 1 fatal error, 2 bad usage or input, 3 some samples failed, 4 a --fail-under, --fail-under-sample, --fail-under-conversation, --max-drop or --max-regressed gate breached (or it could not be checked: too many samples failed to score, or no sample is shared with --baseline), 130 interrupted. 1, 2 and 130 win over 4, and 4 over 3.`,
		Example: `ragscope run testdata/demo.jsonl
ragscope run --headless --out runreport.json --metrics faithfulness,context_recall data.jsonl
ragscope run --base-url http://localhost:11434/v1 --model qwen2.5:14b --lang zh data.csv
ragscope run --headless --resume latest
ragscope run --headless --fail-under faithfulness=0.8 --fail-under-sample f=0.5 --max-failing 2% --junit runreport.xml data.jsonl
ragscope run --headless --format github --fail-under faithfulness=0.8,context_recall=0.7 data.jsonl
ragscope run --headless --baseline testdata/baseline.json --max-drop f=0.05 --max-regressed 2 data.jsonl`,
		ValidArgsFunction: completeDataset,
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			return c.evaluateCommand(cmd, &f, pos)
		}),
	}
	addRunFlags(&f, cmd.Flags())
	registerRunCompletions(cmd)
	clidoc.SetGroupedHelp(cmd, runFlagGroups)
	return cmd
}

func (c *cli) evaluateCommand(cmd *cobra.Command, f *runFlags, pos []string) int {
	stdout, stderr := c.stdout, c.stderr
	if len(pos) > 1 || (len(pos) == 0 && f.Resume == "") {
		return usageHint(stderr, cmd, "give exactly one DATASET (JSONL, JSON, CSV, YAML or Parquet), e.g. ragscope run --headless testdata/demo.jsonl")
	}
	if len(pos) == 1 {
		f.Dataset = pos[0]
	}
	ctx, stop := interruptible()
	defer stop()
	code, err := 0, checkSampleFlags(cmd.Flags())
	if err == nil {
		code, err = evaluate(ctx, f, stdout, stderr)
	}
	if err != nil {
		return failedAsIs(stderr, "ragscope", err)
	}
	return code
}

// interruptible is the context of a command that SIGINT and SIGTERM stop.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func evaluate(ctx context.Context, f *runFlags, stdout, stderr io.Writer) (int, error) {
	if err := f.Validate(); err != nil {
		return 0, err
	}
	if f.detach {
		return detach(f, stdout, stderr)
	}
	if !f.headless && (!isTerminal(os.Stdout) || !isTerminal(os.Stdin)) {
		return 0, exit.Usagef("the interface needs a terminal; use --headless (with --out FILE) in scripts and CI")
	}
	// A takeover of the database is said on stderr headless, never behind the TUI's back.
	var takeover io.Writer
	f.Stream = f.headless // the TUI holds every sample; headless reads them as it goes
	if f.headless {
		takeover, f.StepSummary = stderr, os.Getenv("GITHUB_STEP_SUMMARY")
	}
	st, err := store.Open(f.DB, store.OpenOptions{Mode: store.Hold, Role: "run", Stderr: takeover})
	if err != nil {
		return 0, err
	}
	defer st.Close()
	s, err := app.Prepare(&f.Config, st, stderr)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	if f.headless {
		if h, ok := st.Holder(); ok {
			fmt.Fprintf(stderr, "ragscope: the database is held by pid %d (ragscope %s); this run goes through it\n", h.PID, h.Role)
		}
		// No one to ask: over budget, the run does not start.
		if err := s.ConfirmBudget(ctx, f.yes, stderr); err != nil {
			return 0, err
		}
		return app.Headless(ctx, s, stdout, stderr)
	}
	return app.Interactive(ctx, s, f.ascii, stderr)
}

// detach submits the run to the server holding the database.
func detach(f *runFlags, stdout, stderr io.Writer) (int, error) {
	if f.headless {
		return 0, exit.Usagef("--detach and --headless contradict each other: a detached run has no terminal either way; its report is written to --out by the server")
	}
	if f.ConfirmOver > 0 {
		return 0, exit.Usagef("--confirm-over needs the run to start here, with or without --headless; check a detached run's cost first with ragscope estimate")
	}
	id, pid, err := app.Submit(f.Config)
	if err != nil {
		return 0, err
	}
	fmt.Fprintln(stdout, id)
	fmt.Fprintf(stderr, "ragscope: run %s submitted to the server (pid %d); watch it with: ragscope attach %s\n", id, pid, id)
	return exit.OK, nil
}

// checkCommand is `ragscope check`: the run's judge settings, tried with
// one tiny chat call and one embedding call before a run spends money.
func (c *cli) checkCommand() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:     "check",
		Aliases: []string{"doctor"},
		Short:   "Try the judge endpoint: reachable, key accepted, json_schema, n, embeddings",
		Long:    `Send one tiny chat request and one embedding request with the judge settings run would use (flags, environment, settings file) and say what works: whether the endpoint answers, the key is accepted, strict JSON-schema replies and n > 1 are supported, and the embedding model answers.`,
		Example: `ragscope check --base-url http://localhost:11434/v1 --model qwen2.5:14b`,
		Args:    exactArgs(0, "takes the judge flags of run, no DATASET"),
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			if err := f.Validate(); err != nil {
				return failedAsIs(c.stderr, "ragscope check", exit.UsageError{Err: err})
			}
			ctx, stop := interruptible()
			defer stop()
			return check.Run(ctx, &f.Config, c.stdout)
		}),
	}
	addRunFlags(&f, cmd.Flags())
	registerRunCompletions(cmd)
	clidoc.SetGroupedHelp(cmd, runFlagGroups)
	return cmd
}

// flagValue is a flag whose text parse checks and format shows, a zero
// shown as unset when blankZero; typ names the value in help and completion.
type flagValue[T comparable] struct {
	p         *T
	typ       string
	parse     func(string) (T, error)
	format    func(T) string
	blankZero bool
}

func (v flagValue[T]) String() string {
	var zero T
	if v.p == nil || (v.blankZero && *v.p == zero) {
		return ""
	}
	return v.format(*v.p)
}

func (v flagValue[T]) Type() string { return v.typ }

func (v flagValue[T]) Set(s string) error {
	x, err := v.parse(s)
	if err == nil {
		*v.p = x
	}
	return err
}

// listFlag is a flag of comma-separated items that may also be repeated:
// --fail-under f=0.8 --fail-under cr=0.7 is --fail-under f=0.8,cr=0.7.
// typ is the value's form in help: METRIC=X unless given.
func listFlag(p *string, typ string) flagValue[string] {
	join := func(s string) (string, error) {
		if *p != "" {
			s = *p + "," + s
		}
		return s, nil
	}
	return flagValue[string]{p, cmp.Or(typ, "METRIC=X"), join, func(s string) string { return s }, false}
}

// positiveInt is a flag of a count that must be 1 or more when given: a
// --sample 0 is a typo, not "no sample".
func positiveInt(p *int) flagValue[int] {
	parse := func(s string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return 0, fmt.Errorf("%q is not a number of samples: give 1 or more", s)
		}
		return n, nil
	}
	return flagValue[int]{p, "N", parse, strconv.Itoa, true}
}

// checkSampleFlags refuses a --seed without the --sample it chooses for:
// alone it would change nothing, and the user meant something.
func checkSampleFlags(fs *pflag.FlagSet) error {
	if fs.Changed("seed") && !fs.Changed("sample") {
		return exit.Usagef("--seed chooses the samples of --sample: give --sample N too")
	}
	return nil
}

// number is a float flag that takes only a finite number: strconv reads
// "NaN" and "Inf", which no setting means (with a NaN temperature every
// request of the run would fail to encode). Every float flag is one.
func number(p *float64) flagValue[float64] {
	parse := func(s string) (float64, error) {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("%q is not a number", s)
		}
		return v, nil
	}
	return flagValue[float64]{p, "float64", parse, func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }, false}
}

// byteSize is a flag of a size in bytes: 1048576, 512KiB, 8MiB, 1GiB (KB,
// MB, GB are read as the same powers of two).
func byteSize(p *int64) flagValue[int64] {
	return flagValue[int64]{p, "size", parseSize, func(n int64) string { return strconv.FormatInt(n, 10) }, true}
}

func parseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(strings.ToUpper(t), strings.ToUpper(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%q is not a size like 8MiB or 1048576", s)
	}
	return n * mult, nil
}
