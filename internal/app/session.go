package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/cost"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/eval/dataset"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/eval/offline"
	"github.com/ragscope/ragscope/eval/offline/words"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/baseline"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/holder"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/prompts"
)

// Session is one evaluation set up: the dataset loaded, the judge built,
// the run record initialised. Start runs it; re-runs of it (the TUI's
// prompt workflow) start the same way.
type Session struct {
	Cfg     *Config
	Store   cache.Store
	Loaded  *dataset.Loaded
	Judge   eval.Judge
	LLM     *llm.Judge // the LLM judge, nil for the offline one
	Banner  string
	Prompts *prompts.Set
	Metrics []eval.Metric
	// Criteria are --criteria's, scored beside Metrics; nil without them.
	Criteria *criteria.Set

	sent func() int // requests on the wire, for the in-flight gauge
	// unrecoverable classifies judge errors for fail-fast (see eval.RunnerConfig).
	unrecoverable func(error) string
	limits        []*endpoint.Client  // whose limiter state is shown
	abilities     *endpoint.Abilities // what is known of the judge's endpoint; nil offline
	resumed       int                 // samples the resumed run had finished
	datasetOpt    dataset.Options     // what the dataset was read with: a stream reads it again the same way
	log           io.Writer
	logFile       *os.File
	baseline      *baseline.Baseline // --baseline, resolved and checked
	subset        []int              // --sample: the indexes evaluated, ascending; nil for all

	mu  sync.Mutex
	run report.RunInfo
}

// datasetPath is the dataset's absolute path, "" when it has none: the
// run records it, and --baseline latest matches runs by it.
func (s *Session) datasetPath() string {
	abs, err := filepath.Abs(s.Cfg.Dataset)
	if err != nil {
		return ""
	}
	return abs
}

// prepareBaseline resolves and checks --baseline for this run.
func (s *Session) prepareBaseline(stderr io.Writer) error {
	r := baseline.Run{ID: s.run.ID, StartedAt: s.run.StartedAt, Dataset: s.Cfg.Dataset,
		Scored: s.Scored(), Metrics: s.Metrics, MaxDrop: s.Cfg.Parsed.Gate.Baseline.MaxDrop}
	if s.Loaded != nil {
		r.DatasetHash = s.Loaded.SHA256
	}
	r.DatasetPath = s.datasetPath()
	var err error
	s.baseline, err = baseline.Prepare(s.Store, s.Cfg.Baseline, r, stderr)
	return err
}

// Prepare sets a run up: flags checked, dataset loaded, prompts and judge
// built, run record initialised; nothing is written yet. Skipped records
// (--skip-invalid) are listed on stderr. The caller closes the session
// (which does not close the store).
func Prepare(cfg *Config, st cache.Store, stderr io.Writer) (_ *Session, err error) {
	s, err := NewSession(cfg, st)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			s.Close()
		}
	}()
	if cfg.Resume != "" {
		if err := s.loadResume(); err != nil {
			return nil, err
		}
	}
	if cfg.Dataset == "" {
		return nil, exit.Usagef("give exactly one DATASET (JSONL, JSON, CSV, YAML or Parquet), e.g. ragscope run --headless testdata/demo.jsonl")
	}
	if err := s.loadDataset(stderr); err != nil {
		return nil, err
	}
	if err := s.chooseSubset(stderr); err != nil {
		return nil, err
	}
	if cfg.Baseline != "" {
		// Before this run is recorded (so latest is an earlier one) and
		// before any judge call: a bad baseline costs nothing.
		if err := s.prepareBaseline(stderr); err != nil {
			return nil, err
		}
	}
	if err := s.BuildJudge(); err != nil {
		return nil, err
	}
	if cfg.Resume != "" {
		if err := s.sameJudge(); err != nil {
			return nil, err
		}
	}
	if err := s.initRun(); err != nil {
		return nil, err
	}
	if p := s.run.Pricing; len(p.Unpriced) > 0 {
		// Said before the run, where the judge is named: its cost will be unknown.
		s.Banner += "; " + p.Note()
	}
	return s, nil
}

// NewSession is what every session (a run's, a watcher's) starts with:
// the log file opened, the cache flags checked; BuildJudge completes it.
// The caller closes the session (which does not close the store).
func NewSession(cfg *Config, st cache.Store) (*Session, error) {
	if !cfg.Parsed.ok {
		return nil, errors.New("app: a session of a Config that Validate has not parsed")
	}
	s := &Session{Cfg: cfg, Store: st, Metrics: cfg.Parsed.Metrics, Criteria: cfg.Parsed.Criteria, log: io.Discard}
	if cfg.LogFile != "" {
		lf, err := os.OpenFile(cfg.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, exit.Usagef("--log: %v", err)
		}
		s.logFile, s.log = lf, lf
	}
	if cfg.NoCache && cfg.CacheOnly {
		s.Close()
		return nil, exit.Usagef("--no-cache and --cache-only contradict each other: choose one")
	}
	return s, nil
}

// shownSkipped is how many skipped records the terminal lists; the log
// (--log) lists every one the loader kept.
const shownSkipped = 10

// listSkipped names the records --skip-invalid left out, each in the
// dataset's own wording with the file it is in (a promptfoo config's tests
// file, for one): the first few on the terminal, all of them in the log.
func (s *Session) listSkipped(stderr io.Writer, loaded *dataset.Loaded, path string) {
	head := fmt.Sprintf("ragscope: skipped %d invalid record(s) of %s (--skip-invalid):\n", loaded.SkippedCount, path)
	fmt.Fprint(stderr, head)
	fmt.Fprint(s.log, head)
	for i, sk := range loaded.Skipped {
		line := fmt.Sprintf("  %s\n", loaded.SkipError(sk))
		if i < shownSkipped {
			fmt.Fprint(stderr, line)
		}
		fmt.Fprint(s.log, line)
	}
	if more := loaded.SkippedCount - len(loaded.Skipped); more > 0 {
		fmt.Fprintf(s.log, "  ... and %d more (only the first %d are kept)\n", more, len(loaded.Skipped))
	}
	if n := loaded.SkippedCount - min(shownSkipped, len(loaded.Skipped)); n > 0 {
		listed := "them all"
		if len(loaded.Skipped) < loaded.SkippedCount {
			listed = fmt.Sprintf("the first %d", len(loaded.Skipped))
		}
		where := "pass --log FILE to list " + listed
		if s.logFile != nil {
			where = "--log " + s.Cfg.LogFile + " lists " + listed
		}
		fmt.Fprintf(stderr, "  ... and %d more (%s)\n", n, where)
	}
}

// Close releases the log file.
func (s *Session) Close() {
	if s.logFile != nil {
		s.logFile.Close()
		s.logFile = nil
	}
}

// Scored are the names the session's results are scored under: its
// metrics, then its criteria.
func (s *Session) Scored() []eval.Metric { return eval.Scored(s.Metrics, s.Criteria.Names()) }

// Info is a copy of the run record.
func (s *Session) Info() report.RunInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.run
}

// doneLookup gives the runner the earlier attempt's finished results, read
// from the store a page at a time alongside the samples (which come in
// index order), nil when the run is not resumed.
func (s *Session) doneLookup() func(int) *eval.Result {
	if s.Cfg.Resume == "" || s.resumed == 0 {
		return nil
	}
	return store.NewCursor(s.Store, s.run.ID).Finished
}

func (s *Session) loadDataset(stderr io.Writer) error {
	if l := s.Cfg.Preloaded; l != nil {
		if l.Count == 0 {
			return exit.UsageError{Err: fmt.Errorf("%s: no samples to evaluate", s.Cfg.Dataset)}
		}
		s.Loaded = l
		return nil
	}
	path := s.Cfg.Dataset
	s.datasetOpt = dataset.Options{SkipInvalid: s.Cfg.SkipInvalid, MaxRecordBytes: s.Cfg.MaxRecordBytes, Map: s.Cfg.Parsed.Map, Sheet: s.Cfg.Sheet}
	load := dataset.Load
	if s.Cfg.Stream {
		// Validated whole now, read again as it is evaluated: a bad record
		// is still refused before anything is paid for, and the samples
		// are never all in memory.
		load = dataset.Scan
	}
	loaded, err := load(path, s.datasetOpt)
	if err != nil {
		return exit.UsageError{Err: err}
	}
	if loaded.SkippedCount > 0 {
		s.listSkipped(stderr, loaded, path)
	}
	if loaded.Count == 0 {
		return exit.UsageError{Err: fmt.Errorf("%s: no valid samples to evaluate", path)}
	}
	if loaded.NoContexts != "" {
		msg := fmt.Sprintf("ragscope: warning: %s: %s\n", path, loaded.NoContexts)
		fmt.Fprint(stderr, msg)
		fmt.Fprint(s.log, msg)
	}
	if s.run.ID != "" && s.run.DatasetHash != "" && s.run.DatasetHash != loaded.SHA256 {
		return exit.UsageError{Err: fmt.Errorf("--resume %s: %s has changed since the run started (sha256 %s, was %s); start a new run instead",
			s.run.ID, path, short(loaded.SHA256), short(s.run.DatasetHash))}
	}
	s.Loaded = loaded
	return nil
}

func short(h string) string { return h[:min(12, len(h))] }

// BuildJudge loads the prompts (their overrides) and builds the judge.
func (s *Session) BuildJudge() (err error) {
	c := s.Cfg
	if c.UseOffline() {
		// The offline judge uses no prompt: a broken override must not
		// stop it (the demo, --offline).
		s.Prompts = prompts.Embedded()
		var opts []offline.Option
		if c.OfflineLexicon != "" {
			lx, err := words.ReadLexicon(c.OfflineLexicon)
			if err != nil {
				return exit.Usagef("--offline-lexicon: %v", err)
			}
			opts = append(opts, offline.WithLexicon(lx))
		}
		s.Judge = offline.New(opts...)
		// The blind spots come first: the line is cut to the terminal's
		// width, and a first-time user must see that it is lexical.
		if c.Offline {
			s.Banner = "judge: offline (lexical; " + offline.BlindSpots + "), as asked by --offline"
		} else {
			s.Banner = "judge: offline (lexical; " + offline.BlindSpots + "), because neither OPENAI_BASE_URL/--base-url nor OPENAI_API_KEY is set; " +
				"set them (and --model) to use an LLM judge"
		}
		return nil
	}
	source := "--prompts"
	if c.PromptsDir == "" {
		// Overrides made in the TUI without --prompts live in the default
		// directory; later runs use them, and say so in the run record.
		dir := DefaultPromptsDir() // "" without a config directory, which Stat refuses
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			c.PromptsDir, source = dir, PromptsDirDefault
		}
	}
	if s.Prompts, err = LoadPromptsFrom(c.PromptsDir, source); err != nil {
		return err
	}
	if !slices.Contains([]string{"", "json_schema", "json_object", "text"}, c.ResponseFormat) {
		return exit.Usagef("--response-format: %q is not one of json_schema, json_object, text", c.ResponseFormat)
	}
	if !slices.Contains([]string{"", "auto", "off", "on"}, c.Reasoning) {
		return exit.Usagef("--reasoning: %q is not one of auto, off, on", c.Reasoning)
	}
	if c.MaxTokens < 0 {
		return exit.Usagef("--max-tokens: %d is negative; give the largest completion budget, e.g. %d", c.MaxTokens, DefaultMaxTokens)
	}
	if !slices.Contains([]string{"float", "base64"}, c.EmbedFormat) {
		return exit.Usagef("--embedding-format: %q is not one of float, base64", c.EmbedFormat)
	}
	baseURL := c.JudgeURL()
	remembered := RememberedEndpoint(c.DB, baseURL, c.Model, func(msg string) { fmt.Fprintln(s.log, "endpoint profiles:", msg) })
	s.abilities = endpoint.NewAbilities(remembered, c.ResponseFormat)
	client, err := c.Endpoint(baseURL, s.abilities)
	if err != nil {
		return exit.UsageError{Err: err}
	}
	s.sent = client.InFlight
	s.limits = []*endpoint.Client{client}
	s.unrecoverable = func(err error) string {
		if f := endpoint.Classify(err); f.Kind.Unrecoverable() {
			return string(f.Kind)
		}
		return ""
	}
	var cc eval.ChatClient = client
	embeddings := c.EmbeddingModel
	if c.EmbeddingURL != "" {
		embeddings += " at " + eval.EndpointOf(c.EmbeddingURL)
		ec, err := c.Endpoint(c.EmbeddingURL, nil)
		if err != nil {
			return exit.UsageError{Err: err}
		}
		cc = splitClient{ChatClient: client, embed: ec}
		s.limits = append(s.limits, ec)
		s.sent = func() int { return client.InFlight() + ec.InFlight() }
	}
	if !c.NoCache {
		mode := cache.ReadWrite
		if c.CacheOnly {
			mode = cache.CacheOnly
		}
		cc = cache.NewClient(s.Store, cc, mode)
	}
	s.LLM = llm.New(llm.Config{
		BaseURL: baseURL, Model: c.Model, EmbeddingModel: c.EmbeddingModel, EmbeddingBaseURL: c.EmbeddingURL, Dimensions: c.Dimensions,
		ResponseFormat: c.ResponseFormat, Reasoning: c.Reasoning, Abilities: s.abilities,
		Temperature: float32(c.Temperature), QuestionTemperature: 0.7,
		NoN: c.NoN, Lang: c.Parsed.Lang,
	}, eval.Instrument(cc), s.Prompts)
	s.Judge = s.LLM
	s.Banner = fmt.Sprintf("judge: %s at %s (embeddings: %s)", c.Model, eval.EndpointOf(baseURL), embeddings)
	if n := s.abilities.Profile().Notice(); n != "" {
		s.Banner += "; endpoint (remembered): " + n
	}
	return nil
}

// lasting says which of the unrecoverable kinds stop a run mid-way too
// (eval.RunnerConfig.Lasting).
func lasting(kind string) bool { return endpoint.Kind(kind).Lasting() }

// Endpoint is a client of one OpenAI-compatible base URL with the run's
// key, API type, concurrency, timeout and retry settings, sharing what is
// known of the endpoint with the judge (ab; nil: nothing).
func (c *Config) Endpoint(baseURL string, ab *endpoint.Abilities) (*endpoint.Client, error) {
	return endpoint.New(endpoint.Config{
		BaseURL: baseURL, APIKey: c.APIKey, KeyFrom: c.KeyFrom, APIType: c.APIType, APIVersion: c.APIVersion,
		Concurrency: c.Concurrency, RequestTimeout: c.Timeout, MaxRetries: c.MaxRetries, EmbeddingFormat: c.EmbedFormat,
		MaxRetryAfter: c.MaxRetryAfter, RPM: c.RPM, TPM: c.TPM, MaxReplyBytes: c.MaxReplyBytes,
		MaxTokens: c.MaxTokens, Abilities: ab,
	})
}

// DefaultMaxTokens is the default of --max-tokens.
const DefaultMaxTokens = endpoint.DefaultMaxTokens

// splitClient sends chat to the client it embeds and embeddings to
// another endpoint.
type splitClient struct {
	eval.ChatClient
	embed eval.ChatClient
}

func (c splitClient) Embed(ctx context.Context, req eval.EmbedRequest) (eval.EmbedResponse, error) {
	return c.embed.Embed(ctx, req)
}

func (s *Session) loadResume() error {
	info, _, _, err := s.Store.RunPage(s.Cfg.Resume, 0, 0)
	if err != nil {
		return exit.UsageError{Err: err}
	}
	if info.FinishedAt != nil && !info.Cancelled {
		return exit.UsageError{Err: fmt.Errorf("--resume %s: that run finished at %s; nothing to resume", info.ID, info.FinishedAt.Format(time.RFC3339))}
	}
	if lv, ok := s.Store.(interface {
		Live() (map[string]holder.LiveRun, error)
	}); ok {
		if running, err := lv.Live(); err == nil {
			if lr, live := running[info.ID]; live {
				return exit.UsageError{Err: fmt.Errorf("--resume %s: the run is being evaluated now by pid %d (ragscope %s); follow it with ragscope attach %s, or stop that process first",
					info.ID, lr.PID, lr.Role, info.ID)}
			}
		}
	}
	if s.Cfg.Dataset == "" {
		s.Cfg.Dataset = info.Dataset
	} else if s.Cfg.Dataset != info.Dataset {
		return exit.UsageError{Err: fmt.Errorf("--resume %s: the run evaluated %s, not %s", info.ID, info.Dataset, s.Cfg.Dataset)}
	}
	if err := s.resumeCriteria(info); err != nil {
		return err
	}
	if err := s.resumeMetrics(info); err != nil {
		return err
	}
	s.run = info
	// The run keeps its first start; its duration adds this attempt's to
	// what the earlier ones took (an attempt that ended and was never
	// resumed before recorded only its start and end).
	if info.ElapsedMS == 0 && info.FinishedAt != nil {
		s.run.ElapsedMS = info.FinishedAt.Sub(info.AttemptStart()).Milliseconds()
	}
	// The end of the run adds what this attempt uses to what the earlier
	// ones recorded; one killed before its end recorded nothing.
	if info.FinishedAt == nil || (info.Usage == nil && info.Calls != (eval.CallCounts{})) {
		s.run.UsagePartial = true
	}
	// Counted now, read again as the run goes (doneLookup): the earlier
	// attempt's results are never all in memory.
	s.resumed = 0
	return store.Each(s.Store, info.ID, nil)(func(r *eval.Result) error {
		if !r.Failed() {
			s.resumed++
		}
		return nil
	})
}

// resumeMetrics keeps the metrics of a resumed run: without --metrics its
// own are evaluated; others would score the rest of the run otherwise.
func (s *Session) resumeMetrics(info report.RunInfo) error {
	if len(info.Metrics) == 0 || sameMetrics(s.Metrics, info.Metrics) {
		return nil
	}
	if m := strings.TrimSpace(s.Cfg.Metrics); m == "" || m == "all" {
		s.Metrics = slices.Clone(info.Metrics)
		s.Cfg.Parsed.Metrics = s.Metrics
		// The gates were checked against the default metrics: again,
		// against the run's, before anything is paid for.
		return gatedMetrics(s.Cfg.Parsed.Gate, s.Metrics, s.Criteria.Names())
	}
	return exit.UsageError{Err: fmt.Errorf("--resume %s: the run evaluates %s, not --metrics %s: leave --metrics out (the run's are kept), or start a new run",
		info.ID, joinMetrics(info.Metrics), s.Cfg.Metrics)}
}

func sameMetrics(a, b []eval.Metric) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(m eval.Metric) bool { return !slices.Contains(b, m) })
}

// sameJudge refuses to resume a run with another judge than the one that
// judged its first samples: its means would mix two judges' scores under
// the second one's name.
func (s *Session) sameJudge() error {
	was, now := s.run.Judge, s.Judge.Info()
	// The models decide the scores; the server serving them may move.
	if was.Kind == "" || was.Kind == now.Kind && was.Model == now.Model && was.EmbeddingModel == now.EmbeddingModel {
		return nil
	}
	how := "--offline"
	if was.Kind != "offline" {
		how = fmt.Sprintf("--base-url %s --model %s", was.BaseURL, was.Model)
		if was.EmbeddingModel != "" {
			how += " --embedding-model " + was.EmbeddingModel
		}
	}
	return exit.UsageError{Err: fmt.Errorf("--resume %s: the run was judged by %s, and this resume would judge with %s; resume it with the same judge (%s, and its key), or start a new run",
		s.run.ID, judgeText(was), judgeText(now), how)}
}

func judgeText(j eval.JudgeInfo) string {
	if j.Kind == "offline" {
		return j.Name
	}
	return fmt.Sprintf("%s at %s", cmp.Or(j.Model, j.Name), j.BaseURL)
}

// resumeCriteria keeps the criteria of a resumed run that had some:
// without --criteria its own file is read again. A file whose contents
// differ from those the run recorded would score the rest of the run by
// other rules, so it is refused.
func (s *Session) resumeCriteria(info report.RunInfo) error {
	rec := info.Criteria
	if rec == nil {
		return nil
	}
	if s.Cfg.Criteria == "" {
		set, err := loadCriteria(rec.File)
		if err != nil {
			return err
		}
		s.Cfg.Criteria, s.Cfg.Parsed.Criteria, s.Criteria = rec.File, set, set
	}
	if s.Criteria.SHA256 != rec.SHA256 {
		return exit.Usagef("--resume %s: the run was scored with the criteria of %s, and %s holds others now: restore that file, or start a new run", info.ID, rec.File, s.Cfg.Criteria)
	}
	return nil
}

// stampStart records when this attempt of the run starts: the run's start
// for a new run; for a resumed one (--resume) the attempt's only, the run
// keeping its first start (see report.RunInfo.AttemptStartedAt).
func (s *Session) stampStart(now time.Time) {
	if s.Cfg.Resume != "" && !s.run.StartedAt.IsZero() {
		s.run.AttemptStartedAt = now
		return
	}
	s.run.StartedAt = now
}

func (s *Session) initRun() error {
	if s.run.ID == "" {
		id, err := s.Store.NewRunID()
		if err != nil {
			return err
		}
		s.run = report.RunInfo{ID: id, Dataset: s.Cfg.Dataset, DatasetHash: s.Loaded.SHA256, DatasetPath: s.datasetPath()}
	}
	// Priced now, so that a bad prices.json stops the run before anything
	// is paid for.
	t, err := s.PriceTable()
	if err != nil {
		return err
	}
	s.stampStart(time.Now().UTC())
	s.run.FinishedAt, s.run.Cancelled = nil, false
	s.describe(&s.run, t)
	s.run.Samples = s.Loaded.Count
	s.run.Skipped = s.Loaded.SkippedCount
	s.run.ConversationTurns = s.Loaded.Turns
	s.run.Subset = nil // a resumed run's is recorded again, from the subset chosen
	s.recordSubset()
	return nil
}

// NewRunInfo is the record of a new run of the session's judge, metrics
// and settings, priced with t, whose samples the caller brings (a
// watcher's window).
func (s *Session) NewRunInfo(id string, started time.Time, t cost.Table) report.RunInfo {
	info := report.RunInfo{ID: id, Dataset: s.Cfg.Dataset, StartedAt: started.UTC()}
	s.describe(&info, t)
	return info
}

// describe records in info what every run of the session shares: the
// judge, the prompts' contract and hashes, the metrics, the settings and
// the prices.
func (s *Session) describe(info *report.RunInfo, t cost.Table) {
	ji := s.Judge.Info()
	hashes := s.Prompts.Hashes()
	if ji.Kind == "offline" {
		hashes = map[string]string{} // the offline judge uses no prompt
	}
	info.Judge = ji
	info.Contract = prompts.ContractVersion
	info.Prompts = hashes
	info.Metrics = s.Metrics
	info.Criteria = criteriaInfo(s.Criteria)
	info.Config = s.config()
	info.Pricing = cost.RunPricing(t, ji)
}

// criteriaInfo is what a run records of its criteria: nil without them.
func criteriaInfo(set *criteria.Set) *report.CriteriaInfo {
	if set == nil {
		return nil
	}
	ci := &report.CriteriaInfo{File: set.Path, SHA256: set.SHA256}
	for _, c := range set.Criteria {
		ci.Items = append(ci.Items, report.CriterionInfo{Name: c.Name, Kind: string(c.Kind), Pass: c.Pass})
	}
	return ci
}

// PriceTable is the table the session's runs are priced with (--prices or
// the built-in one); the offline judge needs none.
func (s *Session) PriceTable() (cost.Table, error) {
	if s.Judge.Info().Kind == "offline" {
		return cost.Table{}, nil
	}
	return Prices(s.Cfg)
}

// config records the settings that shaped the run; never the API key.
func (s *Session) config() map[string]string {
	c := s.Cfg
	m := map[string]string{
		"strictness": strconv.Itoa(c.Strictness), "lang": c.Lang, "metrics": c.Metrics,
	}
	// set records settings given as keys and values; one not given is left
	// out, so the record says only what was chosen.
	set := func(kv ...string) {
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] != "" {
				m[kv[i]] = kv[i+1]
			}
		}
	}
	set("ac_weights", c.ACWeights, "fc_mode", c.FCMode, "ns_mode", c.NSMode, "history_support", c.HistorySupport)
	if l := c.Parsed.Levels; !l.IsDefault() {
		m[report.LevelsConfigKey] = l.String()
	}
	if !c.UseOffline() {
		// The format the run starts with; stampEndpoint records the one it
		// ends with.
		if s.abilities != nil {
			m["response_format"] = s.abilities.Format()
		}
		if c.Reasoning != "" && c.Reasoning != "auto" {
			m["reasoning"] = c.Reasoning
		}
		set("temperature", strconv.FormatFloat(c.Temperature, 'g', -1, 64), "concurrency", strconv.Itoa(c.Concurrency),
			"max_retries", strconv.Itoa(c.MaxRetries), "request_timeout", c.Timeout.String())
		m["cache"] = map[bool]string{true: "off", false: "on"}[c.NoCache]
		if c.CacheOnly {
			m["cache"] = "only"
		}
		if c.NoN {
			m["n"] = "off"
		}
	}
	set("prompts_dir", c.PromptsDir, "map", c.Mapping, "sheet", c.Sheet)
	if b := s.baseline; b != nil {
		// The run or file it was compared with: latest, resolved.
		m["baseline"] = b.Source()
		set("max_drop", c.MaxDrop, "max_regressed", c.MaxRegressed, "regress_margin", c.RegressMargin)
	}
	// The gate the run was held to, so a stored run says why CI failed it.
	set("fail_under", c.FailUnder, "fail_under_sample", c.FailUnderSample, "fail_under_conversation", c.FailUnderConversation, "max_failing", c.MaxFailing)
	return m
}

// LimitLine says how the judge's endpoints are holding the run back
// (throttled, paused, capped), and the holder of the database when it has
// stopped answering; "" when nothing is.
func (s *Session) LimitLine() string {
	var parts []string
	for i, c := range s.limits {
		if l := c.Limit().String(); l != "" {
			if i > 0 {
				l = "embeddings " + l
			}
			parts = append(parts, l)
		}
	}
	if hn, ok := s.Store.(holderNoter); ok {
		if n := hn.HolderNote(); n != "" {
			parts = append(parts, n)
		}
	}
	return strings.Join(parts, "; ")
}

// holderNoter is a store that says when the holder of the database has
// stopped answering (Shared).
type holderNoter interface{ HolderNote() string }
