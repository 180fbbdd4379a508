package endpoint

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval"
)

// Kind is what went wrong with a call, sorted by what the user must do
// about it.
type Kind string

const (
	// KindOther: anything below, or nothing a retry or the user can
	// single out (a 5xx, a timeout, a malformed reply).
	KindOther Kind = "other"
	// KindUnreachable: the connection was refused or the host name does
	// not resolve.
	KindUnreachable Kind = "unreachable"
	// KindUnauthorized: 401 or 403, the key is missing, wrong or lacks
	// the permission.
	KindUnauthorized Kind = "unauthorized"
	// KindModelNotFound: a 404 (or a 400 coded so) naming the model or
	// the Azure deployment.
	KindModelNotFound Kind = "model_not_found"
	// KindWrongEndpoint: a 404 that names no model, or an HTML page where
	// JSON was due: the base URL is not the API's (it usually ends in /v1).
	KindWrongEndpoint Kind = "wrong_endpoint"
	// KindQuota: the account is out of credit (a 402, or a 429 or 400 that
	// says so: insufficient_quota, arrears), which no wait will cure.
	KindQuota Kind = "quota"
	// KindRateLimited: throttled until the retries ran out, or asked to
	// wait longer than --max-retry-after.
	KindRateLimited Kind = "rate_limited"
	// KindReplyTooLarge: the reply body was over --max-reply-bytes.
	KindReplyTooLarge Kind = "reply_too_large"
	// KindContextTooLong: the prompt does not fit the model's context. It
	// is the sample's: other samples may fit.
	KindContextTooLong Kind = "context_too_long"
)

// Unrecoverable reports whether every later call to the endpoint will fail
// the same way until the user changes something: the kinds a run may stop
// on rather than fail every sample slowly. Such failures are never retried.
func (k Kind) Unrecoverable() bool {
	return slices.Contains([]Kind{KindUnreachable, KindUnauthorized, KindModelNotFound, KindWrongEndpoint, KindQuota}, k)
}

// Lasting reports whether a success before the failure does not make it a
// fluke: credit spent or a key revoked mid-run fails every later call. An
// endpoint that went away may come back.
func (k Kind) Lasting() bool { return k == KindQuota || k == KindUnauthorized }

// Failure is how a call to the endpoint failed: every error this package
// returns for a call that did not end by cancellation wraps one, so
// errors.As finds it through the eval.StepError. All its text is redacted:
// no API key, no credential from a URL.
type Failure struct {
	Kind Kind
	// Status is the HTTP status of the reply; 0 when none arrived.
	Status int
	// Endpoint is the host and path the call went to, without the query
	// string or credentials.
	Endpoint string
	// ServerMessage is the server's own words (its error message, or the
	// visible text of its HTML page), on one line, shortened.
	ServerMessage string
	// Hint says what to do, when there is something specific to say.
	Hint string

	detail     string
	code       int // the status decided on: a gateway's upstream status in a 200's error object
	retry      bool
	throttle   bool // a 429, or a 503 with Retry-After: the endpoint pauses
	retryAfter time.Duration
	step       eval.Status
}

// decided is the status the failure was classified on: a gateway's
// upstream status in a 200's error object, else the reply's.
func (f *Failure) decided() int {
	if f.code != 0 {
		return f.code
	}
	return f.Status
}

func (f *Failure) Error() string {
	if f.Hint == "" {
		return f.detail
	}
	return f.detail + ": " + f.Hint
}

// Classify says how a call failed. For an error of this package it is the
// Failure the error wraps; for any other error the best this package can
// tell (a refused connection, an unknown host), KindOther otherwise, with
// credentials in URLs redacted (it does not know the API key). A nil error
// gives the zero Failure, whose Kind is "". The app's fail-fast check is
// Classify(err).Kind.Unrecoverable().
func Classify(err error) Failure {
	if err == nil {
		return Failure{}
	}
	return *classify(err, facts{})
}

// facts are what the classification knows of the call beyond its error.
type facts struct {
	model         string
	host          string // host:port
	endpoint      string // host and path
	modelsPath    string // path of the models list, for the hint
	keySet        bool
	keyFrom       string // where the key was read (Config.KeyFrom)
	timeout       time.Duration
	timedOut      bool
	maxRetryAfter time.Duration
	// redact is applied to every text of the failure, and to the
	// server's text before it is shortened: a key cut in half by the
	// shortening would no longer be found.
	redact func(string) string
}

func classify(err error, fx facts) *Failure {
	var known *Failure
	if errors.As(err, &known) {
		f := *known
		return &f
	}
	if fx.redact == nil {
		fx.redact = RedactURL
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			fx.host, fx.endpoint = cmp.Or(fx.host, u.Host), cmp.Or(fx.endpoint, u.Host+u.Path)
		}
	}
	f := &Failure{Kind: KindOther, Endpoint: fx.endpoint, step: eval.StatusJudgeError}
	var (
		ce  *contentError
		big *replyTooLarge
		he  *httpError
		dns *net.DNSError
	)
	switch {
	case fx.timedOut:
		f.detail = fmt.Sprintf("no reply within %s (--request-timeout)", fx.timeout)
		f.retry = true
	case errors.As(err, &ce):
		f.detail, f.step = ce.msg, ce.status
		// Asking again may well give a well-formed reply; a wrong vector
		// count will not change.
		f.retry = ce.status == eval.StatusParseError
	case errors.As(err, &big):
		// Not retried: a reply this size is a runaway generation or a
		// misconfigured server, and a retry would pay for it again.
		f.Kind, f.detail = KindReplyTooLarge, big.Error()
	case errors.As(err, &he):
		wait := he.retryAfter
		if wait == 0 && he.resetAfter > 0 {
			// Not a wait the server asked for but when its limit is whole
			// again: waited up to the cap, never refused for being over it.
			wait = he.resetAfter
			if fx.maxRetryAfter > 0 {
				wait = min(wait, fx.maxRetryAfter)
			}
		}
		fromReply(f, he.status, he.body, he.html, wait, fx)
	case errors.As(err, &dns) && !dns.IsTimeout:
		f.Kind, f.detail = KindUnreachable, fmt.Sprintf("cannot resolve %s: %s", cmp.Or(fx.host, dns.Name), dns.Err)
		f.Hint = "is the host name in --base-url right?"
	case refused(err):
		f.Kind, f.detail = KindUnreachable, fmt.Sprintf("cannot connect to %s: connection refused", fx.host)
		f.Hint = fmt.Sprintf("is the server running at %s?", fx.host)
	default:
		f.detail = err.Error()
		f.retry = transient(err)
	}
	f.detail, f.ServerMessage, f.Hint, f.Endpoint = fx.redact(f.detail), fx.redact(f.ServerMessage), fx.redact(f.Hint), fx.redact(f.Endpoint)
	return f
}

func refused(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "connection refused") || strings.Contains(s, "actively refused")
}

// transient: the connection broke or a deadline passed; the next attempt
// may well go through.
func transient(err error) bool {
	var ne net.Error
	var op *net.OpError
	if errors.As(err, &ne) || errors.As(err, &op) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	return strings.Contains(err.Error(), "connection reset")
}

// fromReply classifies a reply that arrived with an error status, an HTML
// page, or an error object in a 2xx.
func fromReply(f *Failure, status int, body []byte, isPage bool, retryAfter time.Duration, fx facts) {
	f.Status = status
	redact := fx.redact
	se := parseServerError(body)
	se.message = redact(se.message)
	switch {
	case isPage:
		f.ServerMessage = htmlText([]byte(redact(string(body))), 200)
		f.detail = fmt.Sprintf("HTTP %d: the endpoint answered with an HTML page, not JSON", status)
		if f.ServerMessage != "" {
			f.detail += fmt.Sprintf(": %q", f.ServerMessage)
		}
	case se.message != "":
		f.ServerMessage = oneLine(se.message, 500)
		f.detail = fmt.Sprintf("HTTP %d: %s", status, f.ServerMessage)
		if status < 300 {
			f.detail = fmt.Sprintf("HTTP %d with an error in the body: %s", status, f.ServerMessage)
		}
	case len(bytes.TrimSpace(body)) > 0:
		f.ServerMessage = oneLine(redact(string(body)), 200)
		f.detail = fmt.Sprintf("HTTP %d: %s", status, f.ServerMessage)
	default:
		f.detail = fmt.Sprintf("HTTP %d %s", status, http.StatusText(status))
	}
	// Gateways (OpenRouter, LiteLLM) put the upstream status in a 200's
	// error object: decide on that.
	code := status
	if n, err := strconv.Atoi(se.code); err == nil && status < 300 && n >= 400 && n < 600 {
		code = n
	}
	f.code = code
	answered := fmt.Sprintf("the endpoint answered %d", status)
	if f.ServerMessage != "" {
		answered += ": " + f.ServerMessage
	}
	switch {
	case code == 401 || code == 403:
		f.Kind = KindUnauthorized
		f.Hint = "check " + cmp.Or(fx.keyFrom, "OPENAI_API_KEY") + " (" + answered + ")"
		if !fx.keySet {
			f.Hint = "no API key was sent: set OPENAI_API_KEY (" + answered + ")"
		}
	case (code == 404 || code == 400) && namesModel(se, fx.model, code == 404):
		f.Kind = KindModelNotFound
		path := cmp.Or(fx.modelsPath, "/v1/models")
		what := "the model"
		if fx.model != "" {
			what = fmt.Sprintf("model %q", fx.model)
		}
		f.Hint = fmt.Sprintf("%s not found: see GET %s (%s)", what, path, answered)
	case code == 404 || (isPage && status < 300):
		f.Kind = KindWrongEndpoint
		f.Hint = fmt.Sprintf("no OpenAI-compatible API answers at %s: is --base-url right? (it usually ends in /v1)", cmp.Or(fx.endpoint, "the base URL"))
	case code == 402 || quota(se):
		// Whatever the status (a 429, a 400, an error in a stream's 200).
		f.Kind = KindQuota
		f.Hint = "the account is out of quota or credit: waiting will not help; check its plan and billing"
	case contentFilter(se):
		// A provider's filter refused the prompt or the reply, with a 400
		// or in a stream that had begun; the same sample is refused
		// again. Azure: "The response was filtered due to the prompt
		// triggering Azure OpenAI's content management policy"
		// (openai/openai-python#331).
		f.Hint = contentFiltered
	case (code == 400 || code == 413 || code == 422) && contextTooLong(se):
		if _, room := roomAfterPrompt(se.message); room {
			break // the budget, not the prompt: Chat asks again with less
		}
		f.Kind, f.Hint = KindContextTooLong, promptTooLong
	case code == 429 || (code == 503 && retryAfter > 0):
		f.Kind, f.throttle, f.retry, f.retryAfter = KindRateLimited, true, true, retryAfter
		if fx.maxRetryAfter > 0 && retryAfter > fx.maxRetryAfter {
			f.retry = false
			f.Hint = fmt.Sprintf("the server asked to retry after %s, beyond the %s cap: not retried (--max-retry-after raises the cap)",
				retryAfter, fx.maxRetryAfter)
		}
	case code == 400 && se.code == "json_validate_failed":
		// Groq's JSON mode checked the model's reply and it did not
		// hold: "Failed to generate JSON. Please adjust your prompt. See
		// 'failed_generation' for more details." A malformed reply, not
		// a refusal: asked again, as one.
		f.retry, f.step = true, eval.StatusParseError
	case code >= 500 && oneChoiceOnly(se.message):
		// Not a failure of the server but a refusal of n (see
		// refusedSwitch): asked again, it is refused again.
	case code == 408 || code == 409 || code >= 500:
		f.retry = true
	case code < 300:
		// An error object with no status to go by: most often an upstream
		// hiccup relayed by a gateway, so it is retried like a 5xx.
		f.retry = true
	}
}

// oneChoiceOnly is llama.cpp's server refusing n > 1, which it answers
// with a 500 ("Only one completion choice is allowed";
// algorithmicsuperintelligence/optillm#8).
func oneChoiceOnly(msg string) bool {
	return strings.Contains(strings.ToLower(msg), "only one completion choice")
}

// namesModel: the error is about the model (or Azure deployment), not the
// path. A 400 must say so by its code, or name the model and "not found".
func namesModel(se serverError, model string, is404 bool) bool {
	id := strings.ToLower(se.code + " " + se.typ)
	// Volcengine Ark's inference endpoint (ep-…) is what the model field
	// names: "InvalidEndpointOrModel.NotFound", "InvalidEndpoint.NotFound"
	// (w4n9H/autocoder-nano#3).
	if strings.Contains(id, "model_not_found") || strings.Contains(id, "deploymentnotfound") || strings.Contains(id, "invalidendpoint") {
		return true
	}
	msg := strings.ToLower(se.message)
	mentions := strings.Contains(msg, "model") || strings.Contains(msg, "deployment") ||
		(model != "" && strings.Contains(msg, strings.ToLower(model)))
	if is404 {
		return mentions
	}
	return mentions && (strings.Contains(msg, "not found") || strings.Contains(msg, "does not exist"))
}

// quota: the error says the account has no credit left. OpenAI: a 429
// typed insufficient_quota; Zhipu: a 429 coded 1113, "Insufficient balance
// or no resource package. Please recharge." (zai-org/GLM-5#148); DashScope:
// a 400 coded Arrearage, "Access denied, please make sure your account is
// in good standing." (hsliuping/TradingAgents-CN#170); DeepSeek's 402
// "Insufficient Balance" (continuedev/continue#9942) is one by its status.
func quota(se serverError) bool {
	id := strings.ToLower(se.code + " " + se.typ)
	return strings.Contains(id, "insufficient_quota") || strings.Contains(id, "billing") ||
		strings.Contains(id, "arrearage") || se.code == "1113" ||
		strings.Contains(strings.ToLower(se.message), "insufficient balance")
}

// contentFilter: a provider's content filter refused the call, by the
// code of its error. Azure: content_filter; Moonshot: type content_filter,
// "The request was rejected because it was considered high risk"
// (666ghj/BettaFish#368); DashScope: data_inspection_failed, "Input data
// may contain inappropriate content." or "Output data may ..."
// (666ghj/BettaFish#449), DataInspectionFailed in its native shape;
// Zhipu: 1301, "系统检测到输入或生成内容可能包含不安全或敏感内容"
// (langchain4j/langchain4j#1079).
func contentFilter(se serverError) bool {
	for _, id := range []string{se.code, se.typ} {
		switch strings.ToLower(id) {
		case "content_filter", "data_inspection_failed", "datainspectionfailed", "1301":
			return true
		}
	}
	return false
}

// contextTooLong: the server refused a prompt longer than the model's
// context, in its own words: "This model's maximum context length is 65536
// tokens. However, you requested 87731 tokens (87731 in the messages, 0 in
// the completion)" (OpenAI, vLLM, DeepSeek: bytedance/deer-flow#66);
// DashScope: "<400> InternalError.Algo.InvalidParameter: Range of input
// length should be [1, 30720]" (QwenLM/Qwen-Agent#615, QwenLM/qwen-code#98);
// Zhipu: code 1261, "Prompt exceeds max length"
// (NousResearch/hermes-agent#1877); SGLang: "... longer than the model's
// context length"; vLLM: "... longer than the maximum model length".
func contextTooLong(se serverError) bool {
	if se.code == "1261" || strings.EqualFold(se.code, "context_length_exceeded") {
		return true
	}
	msg := strings.ToLower(se.message)
	return slices.ContainsFunc([]string{"context length", "maximum model length", "range of input length", "prompt exceeds max length"},
		func(w string) bool { return strings.Contains(msg, w) })
}

// promptTooLong is the hint of a prompt longer than the model's context.
const promptTooLong = "the prompt does not fit the model's context: this sample's question, answer and contexts are too long for the model; not asked again: judge it with a model of a longer context, or shorten its contexts"

// serverError is the error a server put in its body, in whichever of the
// shapes in use: {"error": {"message", "type", "code"}} (OpenAI, Azure,
// Ollama's /v1), {"error": "text"} (Ollama, proxies), {"object": "error",
// "message"} (vLLM), {"detail": "text"} (FastAPI servers).
type serverError struct {
	message, typ, code string
}

func parseServerError(body []byte) serverError {
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		// Google's endpoints, the OpenAI-compatible one too, wrap the
		// error object in a list: [{"error": {...}}].
		var list []map[string]json.RawMessage
		if json.Unmarshal(body, &list) != nil || len(list) == 0 {
			return serverError{}
		}
		top = list[0]
	}
	if raw, ok := top["error"]; ok && present(raw) {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return serverError{message: s}
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(raw, &obj) == nil {
			return errorFields(obj)
		}
	}
	if se := errorFields(top); se.message != "" {
		return se
	}
	var detail string
	if json.Unmarshal(top["detail"], &detail) == nil {
		return serverError{message: detail}
	}
	return serverError{}
}

func errorFields(obj map[string]json.RawMessage) serverError {
	se := serverError{message: jsonText(obj["message"]), typ: jsonText(obj["type"]), code: jsonText(obj["code"])}
	if up := upstream(obj["metadata"]); up != "" {
		se.message = strings.TrimSpace(se.message + " (" + up + ")")
	}
	return se
}

// upstream is the upstream provider's own error that a gateway's error
// object carries in metadata.raw (OpenRouter: "Provider returned error"
// with the provider's body there, a JSON text or plain text), named by
// metadata.provider_name. What a refusal is, and what to do, is in it.
func upstream(metadata json.RawMessage) string {
	var md struct {
		Raw      json.RawMessage `json:"raw"`
		Provider string          `json:"provider_name"`
	}
	if json.Unmarshal(metadata, &md) != nil || !present(md.Raw) {
		return ""
	}
	raw := []byte(md.Raw)
	var s string
	if json.Unmarshal(md.Raw, &s) == nil {
		raw = []byte(s)
	}
	msg := parseServerError(raw).message
	if msg == "" {
		msg = strings.TrimSpace(s)
	}
	if msg != "" && md.Provider != "" {
		msg = md.Provider + ": " + msg
	}
	return msg
}

// jsonText is a string, a number, or a list of strings as text.
func jsonText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return strings.Join(list, ", ")
	}
	return ""
}

var (
	htmlHiddenRE = regexp.MustCompile(`(?is)<script\b.*?</script\s*>|<style\b.*?</style\s*>|<!--.*?-->`)
	htmlTagRE    = regexp.MustCompile(`(?s)<[^>]*>`)
	escapeSeqRE  = regexp.MustCompile("\x1b(\\[[0-9;?]*[ -/]*[@-~]|\\][^\x07\x1b]*(\x07|\x1b\\\\)?|.)")
)

// htmlText is what a reader of the page would see first: no markup, no
// scripts, entities decoded, on one line.
func htmlText(body []byte, n int) string {
	s := htmlHiddenRE.ReplaceAllString(string(body), " ")
	s = htmlTagRE.ReplaceAllString(s, " ")
	return oneLine(html.UnescapeString(s), n)
}

// oneLine makes server text fit a one-line message and harmless to print:
// terminal escape sequences go whole, any other control or invisible
// formatting character becomes a space, runs of space become one, and the
// text is cut at n bytes on a character boundary.
func oneLine(s string, n int) string {
	s = escapeSeqRE.ReplaceAllString(s, " ")
	s = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
