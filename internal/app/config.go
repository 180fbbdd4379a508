// Package app is ragscope's application layer between the CLI and the
// engine: the one way a run starts (TUI, headless, re-run, served), the
// TUI's prompt and re-run host, and a run's outputs.
package app

import (
	"cmp"
	"errors"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/criteria"
	"github.com/ragscope/ragscope/eval/dataset"
	"github.com/ragscope/ragscope/eval/offline"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/labels"
	"github.com/ragscope/ragscope/eval/settings"
	"github.com/ragscope/ragscope/internal/baseline"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/runreport"
)

// Config is everything that shapes a run: the CLI's flags after the
// settings file and the environment, and what `run --detach` sends to the
// server. The API key is never serialised with it.
type Config struct {
	Dataset string `json:"dataset"`
	Out     string `json:"out,omitempty"`
	// Stream reads the dataset as it is evaluated instead of into memory
	// (headless and detached runs: nothing needs every sample at once).
	Stream         bool    `json:"stream,omitempty"`
	BaseURL        string  `json:"base_url,omitempty"`
	APIKey         string  `json:"-"`
	KeyFrom        string  `json:"-"` // where APIKey was read (endpoint.Config.KeyFrom)
	APIType        string  `json:"api_type,omitempty"`
	APIVersion     string  `json:"api_version,omitempty"`
	Model          string  `json:"model,omitempty"`
	EmbeddingModel string  `json:"embedding_model,omitempty"`
	EmbeddingURL   string  `json:"embedding_base_url,omitempty"`
	Dimensions     int     `json:"embedding_dimensions,omitempty"`
	ResponseFormat string  `json:"response_format,omitempty"`
	Reasoning      string  `json:"reasoning,omitempty"`
	MaxTokens      int     `json:"max_tokens,omitempty"`
	EmbedFormat    string  `json:"embedding_format,omitempty"`
	Temperature    float64 `json:"temperature"`
	Strictness     int     `json:"strictness"`
	// FCMode is --fc-mode and NSMode --ns-mode as given ("" is the
	// default: f1, relevant).
	FCMode string `json:"fc_mode,omitempty"`
	NSMode string `json:"ns_mode,omitempty"`
	// HistorySupport is --history-support as given ("" is chunks): which
	// support found earlier in a conversation counts for faithfulness.
	HistorySupport string `json:"history_support,omitempty"`
	// Pass is --pass as given: the pass levels of the diagnosis
	// (report.ParseLevels; "" is the defaults), recorded with the run.
	Pass string `json:"pass,omitempty"`
	// ACWeights is --ac-weights as given ("" is eval.DefaultACWeights).
	ACWeights      string        `json:"ac_weights,omitempty"`
	NoN            bool          `json:"no_n,omitempty"`
	Concurrency    int           `json:"concurrency"`
	Timeout        time.Duration `json:"request_timeout"`
	MaxRetries     int           `json:"max_retries"`
	MaxRetryAfter  time.Duration `json:"max_retry_after,omitempty"`
	RPM            int           `json:"rpm,omitempty"`
	TPM            int           `json:"tpm,omitempty"`
	MaxReplyBytes  int64         `json:"max_reply_bytes,omitempty"`
	MaxRecordBytes int64         `json:"max_record_bytes,omitempty"`
	Metrics        string        `json:"metrics"`
	Criteria       string        `json:"criteria,omitempty"` // --criteria: a file of the team's own criteria, scored beside the metrics (eval/criteria)
	Lang           string        `json:"lang"`
	Mapping        string        `json:"map,omitempty"`
	Sheet          string        `json:"sheet,omitempty"` // the worksheet of an Excel dataset (dataset.Options.Sheet)
	SkipInvalid    bool          `json:"skip_invalid,omitempty"`
	Offline        bool          `json:"offline,omitempty"`
	OfflineLexicon string        `json:"offline_lexicon,omitempty"` // a team's lexicon file for the offline judge (words.ReadLexicon)
	DB             string        `json:"db,omitempty"`
	NoCache        bool          `json:"no_cache,omitempty"`
	CacheOnly      bool          `json:"cache_only,omitempty"`
	Resume         string        `json:"resume,omitempty"`
	PromptsDir     string        `json:"prompts_dir,omitempty"`
	Prices         string        `json:"prices,omitempty"` // a price table instead of the default prices.json (see Prices)
	LogFile        string        `json:"log,omitempty"`
	Format         string        `json:"format,omitempty"` // the report written to --out (stdout when headless)
	// The CI gate (see report.Gate): METRIC=X,... on the means and on each
	// sample, and --max-failing N or P%.
	FailUnder       string `json:"fail_under,omitempty"`
	FailUnderSample string `json:"fail_under_sample,omitempty"`
	// FailUnderConversation is METRIC=X,... on each conversation's worst turn.
	FailUnderConversation string `json:"fail_under_conversation,omitempty"`
	MaxFailing            string `json:"max_failing,omitempty"`
	// JUnit is the JUnit XML file written when the run ends.
	JUnit string `json:"junit,omitempty"`
	// Baseline is a stored run or a JSON report file the run is compared
	// with; MaxDrop, MaxRegressed and RegressMargin gate on it.
	Baseline      string `json:"baseline,omitempty"`
	MaxDrop       string `json:"max_drop,omitempty"`
	MaxRegressed  string `json:"max_regressed,omitempty"`
	RegressMargin string `json:"regress_margin,omitempty"`
	// ConfirmOver, when positive, is the estimated cost in US dollars
	// above which a run asks before it starts (refuses, headless).
	ConfirmOver float64 `json:"confirm_over,omitempty"`
	// Sample, when positive, evaluates that many samples of the dataset
	// chosen by Seed (run --sample N --seed S); see ChooseSample.
	Sample int    `json:"sample,omitempty"`
	Seed   uint64 `json:"seed,omitempty"`
	// Preloaded, when set, is the dataset, which Dataset then only names
	// (calibrate's pairs, CalibrationData).
	Preloaded *dataset.Loaded `json:"-"`
	// StepSummary is $GITHUB_STEP_SUMMARY of a headless run, which the
	// Markdown summary is appended to with --format github.
	StepSummary string `json:"-"`
	// Parsed is what the text settings above mean. Validate fills it, for
	// flags and detached runs alike; the text itself is only sent and
	// recorded as the user typed it.
	Parsed Settings `json:"-"`
}

// Settings are a Config's text settings parsed (Config.Validate).
type Settings struct {
	Metrics        []eval.Metric       // --metrics
	Criteria       *criteria.Set       // --criteria, read and checked; nil without one
	Lang           eval.Lang           // --lang
	Map            map[string]string   // --map; nil without one
	ACWeights      [2]float64          // --ac-weights
	FCMode         string              // --fc-mode
	NSMode         string              // --ns-mode
	HistorySupport eval.HistorySupport // --history-support
	Levels         report.Levels       // --pass
	Gate           report.Gate         // the CI gate's flags and the baseline's
	ok             bool                // Validate filled it
}

// UseOffline decides the judge: --offline, or no endpoint and no key configured.
func (c *Config) UseOffline() bool {
	return c.Offline || (c.BaseURL == "" && c.APIKey == "")
}

// JudgeURL is --base-url, OpenAI's API when none is given.
func (c *Config) JudgeURL() string { return cmp.Or(c.BaseURL, "https://api.openai.com/v1") }

// runnerLimits are the run's eval.RunnerConfig bounds: the samples
// evaluated at once, the results held ahead of the store, and the text of
// the samples in flight. The offline judge has its own figures, and its
// analysis takes many times a text's size, so big records go one at a time
// and a run's memory is that of its largest record. For an endpoint, twice
// the request slots keep them busy while samples wait on their sequential
// steps (statements before verdicts); nothing is stored ahead, so that a
// failing disk costs few paid results, and a sample's memory is its request
// and reply.
func (c *Config) runnerLimits() (workers, ahead int, text int64) {
	if c.UseOffline() {
		w, a := offline.RunnerConfig()
		return w, a, OfflineTextInFlight
	}
	return 2 * max(c.Concurrency, 1), 0, 0
}

// OfflineTextInFlight bounds the text the offline judge analyses at once
// (eval.RunnerConfig.MaxTextInFlight).
const OfflineTextInFlight = 16 << 20

// Absolute makes the paths of the config absolute against dir, so that a
// server started elsewhere reads the files the client meant.
func (c *Config) Absolute(dir string) {
	paths := []*string{&c.Dataset, &c.Out, &c.PromptsDir, &c.LogFile, &c.DB, &c.JUnit, &c.Criteria, &c.Prices}
	if baseline.IsFile(c.Baseline) {
		paths = append(paths, &c.Baseline)
	}
	for _, p := range paths {
		if *p != "" && !filepath.IsAbs(*p) {
			*p = filepath.Join(dir, *p)
		}
	}
}

// DefaultPromptsDir is where prompt overrides live when neither --prompts
// nor RAGSCOPE_PROMPTS names one: the TUI's edits go there, and runs load it.
func DefaultPromptsDir() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "ragscope", "prompts")
}

// joinMetrics is the comma-separated form of metrics.
func joinMetrics(ms []eval.Metric) string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return strings.Join(out, ",")
}

// checkURL refuses an endpoint URL a request could not go to ("" is none):
// a missing scheme (localhost:11434/v1) would fail every call, each
// retried.
func checkURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return err
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("it has no http:// or https:// scheme")
	case u.Host == "":
		return errors.New("it names no host")
	}
	return nil
}

// Validate parses the settings given as text into Parsed, and refuses
// settings that would otherwise be quietly replaced by a default (a
// --concurrency 0 that became 16 hid a typo in a script).
func (c *Config) Validate() error {
	var p Settings
	var errs [5]error // the first one is said
	p.ACWeights, errs[0] = settings.ParseACWeights(c.ACWeights)
	p.FCMode, errs[1] = eval.ParseFCMode(c.FCMode)
	p.NSMode, errs[2] = eval.ParseNSMode(c.NSMode)
	p.HistorySupport, errs[3] = settings.ParseHistorySupport(c.HistorySupport)
	p.Levels, errs[4] = report.ParseLevels(c.Pass)
	err := cmp.Or(errs[:]...)
	if err != nil {
		return exit.Usagef("%v", err)
	}
	if c.Criteria != "" {
		if p.Criteria, err = loadCriteria(c.Criteria); err != nil {
			return err
		}
	}
	switch {
	case c.Concurrency < 1:
		return exit.Usagef("--concurrency %d: give at least 1 (requests in flight)", c.Concurrency)
	case c.Strictness < 1:
		return exit.Usagef("--strictness %d: give at least 1 (questions generated per sample for answer relevancy)", c.Strictness)
	case c.MaxRetries < 0:
		return exit.Usagef("--max-retries %d: give 0 or more", c.MaxRetries)
	case c.Timeout <= 0:
		return exit.Usagef("--request-timeout %s: give a positive duration, e.g. 60s", c.Timeout)
	case c.RPM < 0 || c.TPM < 0:
		return exit.Usagef("--rpm and --tpm are caps per minute: give 0 (no cap) or more")
	case c.MaxRetryAfter < 0:
		return exit.Usagef("--max-retry-after %s: give 0 or a positive duration", c.MaxRetryAfter)
	case c.Sample < 0:
		return exit.Usagef("--sample %d: give how many samples to evaluate, 1 or more", c.Sample)
	case c.Temperature < 0 || math.IsNaN(c.Temperature) || math.IsInf(c.Temperature, 0):
		return exit.Usagef("--temperature %v: give 0 or more (0 for the most repeatable verdicts)", c.Temperature)
	case c.ConfirmOver < 0 || math.IsNaN(c.ConfirmOver) || math.IsInf(c.ConfirmOver, 0):
		return exit.Usagef("--confirm-over %v: give a cost in US dollars, e.g. 5 or 0.50", c.ConfirmOver)
	}
	for _, u := range []struct{ name, url string }{{"--base-url", c.BaseURL}, {"--embedding-base-url", c.EmbeddingURL}} {
		if err := checkURL(u.url); err != nil && !c.Offline {
			return exit.Usagef("%s %q (from the flag, the environment or the judge's profile): %v; give the endpoint's URL with its scheme, e.g. http://localhost:11434/v1", u.name, u.url, err)
		}
	}
	if !slices.Contains([]string{"", runreport.FormatJSON, runreport.FormatGitHub, runreport.FormatJSONL, runreport.FormatHTML}, c.Format) {
		return exit.Usagef("--format %q: a run writes json, github, jsonl or html (csv and md: ragscope report RUN --format csv|md)", c.Format)
	}
	if p.Gate, err = c.gate(p.Criteria.Names()); err != nil {
		return err
	}
	if p.Metrics, err = settings.ParseMetrics(c.Metrics); err != nil {
		return exit.UsageError{Err: err}
	}
	if err := gatedMetrics(p.Gate, p.Metrics, p.Criteria.Names()); err != nil {
		return err
	}
	if p.Lang, err = settings.ParseLang(c.Lang); err != nil {
		return exit.UsageError{Err: err}
	}
	if p.Map, err = dataset.ParseMap(c.Mapping); err != nil { // nil without one
		return exit.UsageError{Err: err} // it names --map
	}
	p.ok = true
	c.Parsed = p
	return nil
}

// gate parses the run's CI gate flags, which may name its criteria; an
// error names the flag.
func (c *Config) gate(criteria []string) (report.Gate, error) {
	var g report.Gate
	var errs [4]error // the first one is said
	g.Mean, errs[0] = report.ParseThresholds("fail-under", c.FailUnder, criteria...)
	g.Sample, errs[1] = report.ParseThresholds("fail-under-sample", c.FailUnderSample, criteria...)
	g.Conversation, errs[2] = report.ParseThresholds("fail-under-conversation", c.FailUnderConversation, criteria...)
	g.MaxFailing, errs[3] = report.ParseAllowance(c.MaxFailing)
	if err := cmp.Or(errs[:]...); err != nil {
		return g, exit.UsageError{Err: err}
	}
	var err error
	g.Baseline, err = c.baselineGate(criteria)
	return g, err
}

// gatedMetrics refuses a threshold on a metric the run does not evaluate
// (nor a criterion of its file).
func gatedMetrics(g report.Gate, metrics []eval.Metric, criteria []string) error {
	for _, gated := range []struct {
		flag string
		ths  []report.Threshold
	}{{"fail-under", g.Mean}, {"fail-under-sample", g.Sample}, {"fail-under-conversation", g.Conversation}, {"max-drop", g.Baseline.MaxDrop}} {
		for _, th := range gated.ths {
			if !slices.Contains(metrics, th.Metric) && !slices.Contains(criteria, string(th.Metric)) {
				return exit.Usagef("--%s %s: the run does not evaluate %s (--metrics %s); add it to --metrics or drop the threshold", gated.flag, th.Metric, th.Metric, joinMetrics(metrics))
			}
		}
	}
	return nil
}

// loadCriteria reads and checks --criteria's file. A criterion may not take
// a name a metric or a judge task answers to (gates, filters and label
// files would not know which one was meant), nor a report column's.
func loadCriteria(path string) (*criteria.Set, error) {
	set, err := criteria.Load(path, func(name string) bool {
		_, taken := eval.LookupMetric(name)
		return taken || labels.IsJudgeTask(name) || report.IsReportColumn(name)
	})
	if err != nil {
		return nil, exit.UsageError{Err: err} // it names the file and the line
	}
	return set, nil
}

// baselineGate parses --max-drop, --max-regressed and --regress-margin;
// they gate on a baseline, so they need --baseline. --max-drop may name
// one of the run's criteria.
func (c *Config) baselineGate(criteria []string) (report.BaselineGate, error) {
	var g report.BaselineGate
	var err error
	if g.MaxDrop, err = report.ParseMaxDrops("max-drop", c.MaxDrop, criteria...); err != nil {
		return g, exit.UsageError{Err: err}
	}
	if strings.TrimSpace(c.MaxRegressed) != "" {
		if g.MaxRegressed, err = report.ParseAllowanceFlag("max-regressed", c.MaxRegressed); err != nil {
			return g, exit.UsageError{Err: err}
		}
		g.Regressed = true
	}
	g.Margin = report.DefaultRegressMargin
	if m := strings.TrimSpace(c.RegressMargin); m != "" {
		v, err := strconv.ParseFloat(m, 64)
		if err != nil || math.IsNaN(v) || v < 0 || v > 2 {
			return g, exit.Usagef("--regress-margin %q: give how far a sample's score may fall before it counts as regressed, between 0 and 2 (e.g. 0.1)", c.RegressMargin)
		}
		g.Margin = v
	}
	if g.Active() && c.Baseline == "" {
		flag := "--max-drop"
		if len(g.MaxDrop) == 0 {
			flag = "--max-regressed"
		}
		return g, exit.Usagef("%s compares with a baseline: give --baseline RUN|latest|FILE.json too", flag)
	}
	return g, nil
}
