package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset"
	"github.com/ragscope/ragscope/eval/endpoint"
	"github.com/ragscope/ragscope/eval/llm"
	"github.com/ragscope/ragscope/eval/offline"
	"github.com/ragscope/ragscope/prompts"
)

// runFlags are the flags of `ragscope run`.
type runFlags struct {
	headless       bool
	out            string
	baseURL        string
	apiKey         string
	apiType        string
	apiVersion     string
	model          string
	embeddingModel string
	embeddingURL   string
	dimensions     int
	responseFormat string
	embedFormat    string
	temperature    float64
	strictness     int
	noN            bool
	concurrency    int
	timeout        time.Duration
	maxRetries     int
	metrics        string
	lang           string
	mapping        string
	skipInvalid    bool
	offline        bool
	db             string
	noCache        bool
	cacheOnly      bool
	resume         string
	promptsDir     string
	ascii          bool
	logFile        string
	config         string
}

func newRunFlagSet(f *runFlags, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("ragscope run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&f.headless, "headless", false, "evaluate without the TUI: progress and summary on stderr, report to --out")
	fs.StringVar(&f.out, "out", "", "write the JSON report to FILE (headless default: stdout)")
	fs.StringVar(&f.baseURL, "base-url", os.Getenv("OPENAI_BASE_URL"), "OpenAI-compatible API base URL (env OPENAI_BASE_URL), e.g. http://localhost:11434/v1")
	fs.StringVar(&f.apiKey, "api-key", "", "API key (prefer env OPENAI_API_KEY: flags show in the process list)")
	fs.StringVar(&f.apiType, "api-type", "openai", "openai or azure")
	fs.StringVar(&f.apiVersion, "api-version", "", "Azure API version")
	fs.StringVar(&f.model, "model", envOr("RAGSCOPE_MODEL", "gpt-4o-mini"), "judge chat model (env RAGSCOPE_MODEL)")
	fs.StringVar(&f.embeddingModel, "embedding-model", envOr("RAGSCOPE_EMBEDDING_MODEL", "text-embedding-3-small"), "embedding model for answer relevancy (env RAGSCOPE_EMBEDDING_MODEL)")
	fs.StringVar(&f.embeddingURL, "embedding-base-url", os.Getenv("RAGSCOPE_EMBEDDING_BASE_URL"), "embeddings endpoint when --base-url has none (env RAGSCOPE_EMBEDDING_BASE_URL); same API key")
	fs.IntVar(&f.dimensions, "embedding-dimensions", 0, "embedding dimensions (0: the model's default)")
	fs.StringVar(&f.responseFormat, "response-format", "json_schema", "json_schema, json_object or text (for endpoints without JSON-schema support)")
	fs.StringVar(&f.embedFormat, "embedding-format", "float", "float or base64")
	fs.Float64Var(&f.temperature, "temperature", 0, "judge temperature for extraction and verdicts (always sent)")
	fs.IntVar(&f.strictness, "strictness", 3, "questions generated per sample for answer relevancy")
	fs.BoolVar(&f.noN, "no-n", false, "send answer-relevancy draws as separate requests instead of one request with n")
	fs.IntVar(&f.concurrency, "concurrency", 16, "judge requests in flight")
	fs.DurationVar(&f.timeout, "request-timeout", 60*time.Second, "timeout of one request attempt")
	fs.IntVar(&f.maxRetries, "max-retries", 6, "retries on 429, 5xx, timeouts, connection errors and malformed replies")
	fs.StringVar(&f.metrics, "metrics", "all", "comma-separated: faithfulness,answer_relevancy,context_precision,context_recall")
	fs.StringVar(&f.lang, "lang", "auto", "prompt language: auto (per sample), en or zh")
	fs.StringVar(&f.mapping, "map", "", "column mapping, e.g. question=q,answer=resp,contexts=docs,reference=gold,id=uid")
	fs.BoolVar(&f.skipInvalid, "skip-invalid", false, "skip invalid records (reported) instead of stopping at the first")
	fs.BoolVar(&f.offline, "offline", false, "use the offline lexical judge (default when no endpoint or key is configured)")
	fs.StringVar(&f.db, "db", "", "cache and run-store database (default $XDG_CACHE_HOME/ragscope/ragscope.db)")
	fs.BoolVar(&f.noCache, "no-cache", false, "neither read nor write the judge-call cache")
	fs.BoolVar(&f.cacheOnly, "cache-only", false, "replay from the cache without the network; uncached calls end as cache_miss")
	fs.StringVar(&f.resume, "resume", "", "continue an interrupted run (RUN id or latest) into the same run record")
	fs.StringVar(&f.promptsDir, "prompts", os.Getenv("RAGSCOPE_PROMPTS"), "directory of prompt template overrides (<task>.<lang>.tmpl)")
	fs.BoolVar(&f.ascii, "ascii", os.Getenv("RUNEWIDTH_EASTASIAN") == "1", "ASCII-only interface glyphs")
	fs.StringVar(&f.logFile, "log", "", "write a log to FILE (the TUI never writes behind its own back)")
	fs.StringVar(&f.config, "config", "", "settings file (default $XDG_CONFIG_HOME/ragscope/config.json; env RAGSCOPE_CONFIG)")
	return fs
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// parseInterleaved lets flags follow the dataset (`ragscope run data.jsonl --headless`).
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func cmdRun(args []string, stdout, stderr io.Writer) int {
	var f runFlags
	fs := newRunFlagSet(&f, stderr)
	pos, code, ok := parseArgs(fs, args, f.config, stderr)
	if !ok {
		return code
	}
	if f.apiKey == "" {
		f.apiKey = os.Getenv("OPENAI_API_KEY")
	}
	if len(pos) != 1 && f.resume == "" {
		fmt.Fprintln(stderr, "ragscope run: give exactly one DATASET (JSONL, JSON or CSV), e.g. ragscope run --headless testdata/demo.jsonl")
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code, err := evaluate(ctx, &f, pos, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "ragscope:", err)
		return exitCode(err)
	}
	return code
}

// session is one evaluation being set up and run.
type session struct {
	f       *runFlags
	loaded  *dataset.Loaded
	judge   eval.Judge
	llm     *llm.Judge // the LLM judge, nil for the offline one
	sent    func() int // requests on the wire, for the in-flight gauge
	banner  string
	db      *cache.DB
	cc      *cache.Client
	prompts *prompts.Set
	run     eval.RunInfo
	done    map[int]*eval.Result
	metrics []eval.Metric
	log     io.Writer
	logFile *os.File
	// runMu guards run once the evaluation is under way: the TUI's re-runs
	// read it while the first run's end is being recorded.
	runMu sync.Mutex
}

func evaluate(ctx context.Context, f *runFlags, pos []string, stdout, stderr io.Writer) (int, error) {
	s, err := prepare(f, pos, stderr)
	if err != nil {
		return 0, err
	}
	defer s.close()
	if f.headless {
		return s.runHeadless(ctx, stdout, stderr)
	}
	return s.runTUI(ctx, stdout, stderr)
}

// prepare sets a run up: flags checked, database opened, dataset loaded,
// prompts and judge built, run record initialised. The caller closes it.
func prepare(f *runFlags, pos []string, stderr io.Writer) (_ *session, err error) {
	s := &session{f: f, log: io.Discard}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	if f.logFile != "" {
		lf, err := os.OpenFile(f.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, errorf("--log: %v", err)
		}
		s.logFile = lf
		s.log = lf
	}
	if s.metrics, err = eval.ParseMetrics(f.metrics); err != nil {
		return nil, usageError{err}
	}
	lang, err := eval.ParseLang(f.lang)
	if err != nil {
		return nil, usageError{err}
	}
	if f.noCache && f.cacheOnly {
		return nil, errorf("--no-cache and --cache-only contradict each other: choose one")
	}
	if err := s.openDB(); err != nil {
		return nil, err
	}
	if f.resume != "" {
		if err := s.loadResume(&pos); err != nil {
			return nil, err
		}
	}
	if err := s.loadDataset(pos[0], stderr); err != nil {
		return nil, err
	}
	if f.promptsDir == "" {
		// Overrides made in the TUI without --prompts live in the default
		// directory; later runs use them, and say so in the run record.
		if dir := defaultPromptsDir(); dir != "" && isDir(dir) {
			f.promptsDir = dir
		}
	}
	if s.prompts, err = loadPrompts(f.promptsDir); err != nil {
		return nil, err
	}
	if err := s.buildJudge(lang); err != nil {
		return nil, err
	}
	s.initRun(pos[0])
	return s, nil
}

func (s *session) close() {
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
	if s.logFile != nil {
		s.logFile.Close()
		s.logFile = nil
	}
}

func (s *session) openDB() error {
	path := s.f.db
	if path == "" {
		p, err := cache.DefaultPath()
		if err != nil {
			return fmt.Errorf("finding the cache directory: %v (pass --db FILE)", err)
		}
		path = p
	}
	db, err := cache.Open(path, cache.Options{})
	if err != nil {
		return err
	}
	s.db = db
	return nil
}

func loadPrompts(dir string) (*prompts.Set, error) {
	if dir == "" {
		return prompts.Embedded(), nil
	}
	set, err := prompts.Load(dir)
	if err != nil {
		return nil, usageError{fmt.Errorf("--prompts: %v", err)}
	}
	return set, nil
}

func (s *session) loadDataset(path string, stderr io.Writer) error {
	opt := dataset.Options{SkipInvalid: s.f.skipInvalid}
	if s.f.mapping != "" {
		m, err := dataset.ParseMap(s.f.mapping)
		if err != nil {
			return usageError{fmt.Errorf("--map: %v", err)}
		}
		opt.Map = m
	}
	loaded, err := dataset.Load(path, opt)
	if err != nil {
		return usageError{err}
	}
	if len(loaded.Skipped) > 0 {
		fmt.Fprintf(stderr, "ragscope: skipped %d invalid record(s) of %s (--skip-invalid):\n", len(loaded.Skipped), path)
		for i, sk := range loaded.Skipped {
			if i == 10 {
				fmt.Fprintf(stderr, "  ... and %d more\n", len(loaded.Skipped)-10)
				break
			}
			field := ""
			if sk.Field != "" {
				field = fmt.Sprintf(" field %q:", sk.Field)
			}
			fmt.Fprintf(stderr, "  %s:%d:%s %s\n", path, sk.Line, field, sk.Reason)
		}
	}
	if len(loaded.Samples) == 0 {
		return usageError{fmt.Errorf("%s: no valid samples to evaluate", path)}
	}
	if s.run.ID != "" && s.run.DatasetHash != "" && s.run.DatasetHash != loaded.SHA256 {
		return usageError{fmt.Errorf("--resume %s: %s has changed since the run started (sha256 %s, was %s); start a new run instead",
			s.run.ID, path, short(loaded.SHA256), short(s.run.DatasetHash))}
	}
	s.loaded = loaded
	return nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// useOffline decides the judge: --offline, or no endpoint and no key configured.
func (s *session) useOffline() bool {
	return s.f.offline || (s.f.baseURL == "" && s.f.apiKey == "")
}

func (s *session) buildJudge(lang eval.Lang) error {
	f := s.f
	if s.useOffline() {
		s.judge = offline.New()
		if f.offline {
			s.banner = "judge: offline (lexical), as asked by --offline"
		} else {
			s.banner = "judge: offline (lexical), because neither OPENAI_BASE_URL/--base-url nor OPENAI_API_KEY is set; " +
				"set them (and --model) to use an LLM judge"
		}
		return nil
	}
	switch f.responseFormat {
	case "json_schema", "json_object", "text":
	default:
		return errorf("--response-format: %q is not one of json_schema, json_object, text", f.responseFormat)
	}
	switch f.embedFormat {
	case "float", "base64":
	default:
		return errorf("--embedding-format: %q is not one of float, base64", f.embedFormat)
	}
	baseURL := f.baseURL
	if baseURL == "" {
		baseURL = "https://api.openai.com/v1"
	}
	client, err := f.endpoint(baseURL)
	if err != nil {
		return usageError{err}
	}
	s.sent = client.InFlight
	var cc eval.ChatClient = client
	if f.embeddingURL != "" {
		ec, err := f.endpoint(f.embeddingURL)
		if err != nil {
			return usageError{err}
		}
		cc = splitClient{chat: client, embed: ec}
		s.sent = func() int { return client.InFlight() + ec.InFlight() }
	}
	if !f.noCache && s.db != nil {
		mode := cache.ReadWrite
		if f.cacheOnly {
			mode = cache.CacheOnly
		}
		s.cc = s.db.Client(cc, mode)
		cc = s.cc
	}
	s.llm = llm.New(llm.Config{
		BaseURL: baseURL, Model: f.model, EmbeddingModel: f.embeddingModel, EmbeddingBaseURL: f.embeddingURL, Dimensions: f.dimensions,
		ResponseFormat: f.responseFormat, Temperature: float32(f.temperature), QuestionTemperature: 0.7,
		NoN: f.noN, Lang: lang,
	}, eval.Instrument(cc), s.prompts)
	s.judge = s.llm
	s.banner = fmt.Sprintf("judge: %s at %s (embeddings: %s)", f.model, redact(baseURL), f.embeddingModel)
	if f.embeddingURL != "" {
		s.banner = fmt.Sprintf("judge: %s at %s (embeddings: %s at %s)", f.model, redact(baseURL), f.embeddingModel, redact(f.embeddingURL))
	}
	return nil
}

// endpoint is a client of one OpenAI-compatible base URL with the run's
// key, API type, concurrency, timeout and retry settings.
func (f *runFlags) endpoint(baseURL string) (*endpoint.Client, error) {
	return endpoint.New(endpoint.Config{
		BaseURL: baseURL, APIKey: f.apiKey, APIType: f.apiType, APIVersion: f.apiVersion,
		Concurrency: f.concurrency, RequestTimeout: f.timeout, MaxRetries: f.maxRetries, EmbeddingFormat: f.embedFormat,
	})
}

// splitClient sends chat and embeddings to different endpoints.
type splitClient struct{ chat, embed eval.ChatClient }

func (c splitClient) Chat(ctx context.Context, req eval.ChatRequest) (eval.ChatResponse, error) {
	return c.chat.Chat(ctx, req)
}

func (c splitClient) Embed(ctx context.Context, req eval.EmbedRequest) (eval.EmbedResponse, error) {
	return c.embed.Embed(ctx, req)
}

// redact shows where the judge is without credentials or query strings.
func redact(u string) string { return eval.EndpointOf(u) }

func (s *session) loadResume(pos *[]string) error {
	if s.db == nil {
		return errorf("--resume needs the run store; do not combine it with a missing --db")
	}
	info, results, err := s.db.Run(s.f.resume)
	if err != nil {
		return usageError{err}
	}
	if info.FinishedAt != nil && !info.Cancelled {
		return usageError{fmt.Errorf("--resume %s: that run finished at %s; nothing to resume", info.ID, info.FinishedAt.Format(time.RFC3339))}
	}
	if len(*pos) == 0 {
		*pos = []string{info.Dataset}
	} else if (*pos)[0] != info.Dataset {
		return usageError{fmt.Errorf("--resume %s: the run evaluated %s, not %s", info.ID, info.Dataset, (*pos)[0])}
	}
	s.run = info
	s.done = map[int]*eval.Result{}
	for _, r := range results {
		if r == nil || r.Failed() {
			continue
		}
		s.done[r.Index] = r
	}
	return nil
}

func (s *session) initRun(path string) {
	info := s.judge.Info()
	hashes := s.prompts.Hashes()
	if info.Kind == "offline" {
		hashes = map[string]string{} // the offline judge uses no prompt
	}
	if s.run.ID == "" {
		s.run = eval.RunInfo{
			ID: s.db.NewRunID(), Dataset: path, DatasetHash: s.loaded.SHA256,
		}
	}
	s.run.StartedAt = time.Now().UTC()
	s.run.FinishedAt = nil
	s.run.Cancelled = false
	s.run.Judge = info
	s.run.Prompts = hashes
	s.run.Metrics = s.metrics
	s.run.Samples = len(s.loaded.Samples)
	s.run.Skipped = len(s.loaded.Skipped)
	s.run.Config = s.config()
}

// config records the flags that shaped the run; never the API key.
func (s *session) config() map[string]string {
	f := s.f
	c := map[string]string{
		"strictness": strconv.Itoa(f.strictness), "lang": f.lang, "metrics": f.metrics,
	}
	if !s.useOffline() {
		c["response_format"] = f.responseFormat
		c["temperature"] = strconv.FormatFloat(f.temperature, 'g', -1, 64)
		c["concurrency"] = strconv.Itoa(f.concurrency)
		c["max_retries"] = strconv.Itoa(f.maxRetries)
		c["request_timeout"] = f.timeout.String()
		c["cache"] = map[bool]string{true: "off", false: "on"}[f.noCache]
		if f.cacheOnly {
			c["cache"] = "only"
		}
		if f.noN {
			c["n"] = "off"
		}
	}
	if f.promptsDir != "" {
		c["prompts_dir"] = f.promptsDir
	}
	if f.mapping != "" {
		c["map"] = f.mapping
	}
	return c
}

func (s *session) runner(events chan<- eval.Event) *eval.Runner {
	workers := 2 * s.f.concurrency
	if s.useOffline() {
		// The judging is CPU-bound, but each result is stored durably as it
		// finishes: more workers put more results into each disk commit
		// (10k demo samples: 4.6-6.0 s with 4 workers, 2.9-3.6 s with 16-32).
		workers = 16
	}
	r := &eval.Runner{
		Judge:  s.judge,
		Config: eval.RunnerConfig{Metrics: s.metrics, Strictness: s.f.strictness, Workers: workers, InFlight: s.sent},
		Events: events,
		Done:   s.done,
	}
	if s.db != nil {
		runID := s.run.ID
		r.OnResult = func(res *eval.Result) error { return s.db.PutResult(runID, res) }
	}
	return r
}

// finish records the end of the run.
func (s *session) finish(r *eval.Runner, cancelled bool) {
	now := time.Now().UTC()
	s.runMu.Lock()
	s.run.FinishedAt = &now
	s.run.Cancelled = cancelled
	s.run.Calls, s.run.Tokens = r.Counts()
	info := s.run
	s.runMu.Unlock()
	if s.db != nil {
		if err := s.db.PutRun(info); err != nil {
			fmt.Fprintln(s.log, "saving the run record:", err)
		}
	}
}

// runInfo is a copy of the run record, safe while the run finishes.
func (s *session) runInfo() eval.RunInfo {
	s.runMu.Lock()
	defer s.runMu.Unlock()
	return s.run
}
