package endpoint

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
)

// post sends body as JSON to the API path (/chat/completions,
// /embeddings) for model, and decodes a 2xx reply into out. It reads the
// reply whole up to a cap, refusing a Content-Length over the cap unread,
// and turns error statuses, HTML pages and 2xx replies carrying an error
// object into an *httpError that keeps what the classification needs
// (Retry-After, the content type, the error object).
func (c *Client) post(ctx context.Context, a *attempt, path, model string, body, out any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url(path, model), bytes.NewReader(b))
	if err != nil {
		return err
	}
	a.host, a.endpoint = req.URL.Host, req.URL.Host+req.URL.Path
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.APIType == "azure" {
		req.Header.Set("api-key", c.cfg.APIKey)
	} else if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	limit := orDefault(a.maxReply, DefaultMaxReplyBytes)
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return readHTTPError(resp, min(int64(sniffBytes), limit))
	}
	if resp.ContentLength > limit {
		return &replyTooLarge{declared: resp.ContentLength, limit: limit, note: a.maxReplyNote}
	}
	reply, err := readCapped(resp.Body, limit, a.maxReplyNote)
	if err != nil {
		// As net/http quotes a failure of the request it sent.
		return &url.Error{Op: "Post", URL: req.URL.String(), Err: err}
	}
	head := reply.head(sniffBytes)
	if html := isHTML(resp.Header.Get("Content-Type"), head); html || (reply.n <= sniffBytes && errorObject(head)) {
		return &httpError{status: resp.StatusCode, body: head, html: html}
	}
	if sr, ok := out.(*streamedReply); ok {
		return undecodable(sr.read(reply.reader()))
	}
	return undecodable(json.NewDecoder(reply.reader()).Decode(out))
}

// url is where a call of the API path for model goes: Azure names the
// deployment in the path and the API version in the query.
func (c *Client) url(path, model string) string {
	if c.cfg.APIType != "azure" {
		return c.base + path
	}
	return c.base + "/openai/deployments/" + azureDeployment(model) + path + "?" + url.Values{"api-version": {c.cfg.APIVersion}}.Encode()
}

// azureDeployment is the deployment named after model: without ':', and
// without '.' in a 3.5 model's name, which deployment names cannot have.
func azureDeployment(model string) string {
	if strings.Contains(model, "3.5") {
		model = strings.ReplaceAll(model, ".", "")
	}
	return cmp.Or(strings.ReplaceAll(model, ":", ""), "UNKNOWN")
}

// withQuery adds the base URL's query to every request on the wire, where
// the request has not set the parameter: the URL net/http quotes in its
// errors never holds it.
type withQuery struct {
	base  http.RoundTripper
	query url.Values
}

func (t withQuery) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	q := req.URL.Query()
	for k, vs := range t.query {
		if _, set := q[k]; !set {
			q[k] = vs
		}
	}
	req.URL.RawQuery = q.Encode()
	return t.base.RoundTrip(req)
}

// attempt carries per-attempt facts between the retry loop and the call.
type attempt struct {
	// maxReply caps the body; maxReplyNote says how the cap was sized, for
	// the error.
	maxReply     int64
	maxReplyNote string
	// host (host:port) and endpoint (host and path) of the request, for
	// errors that must not quote the query string.
	host, endpoint string
}

// sniffBytes is how much of a reply is looked at before it is decoded:
// error objects and error pages are small, so a reply longer than this is
// not one.
const sniffBytes = 64 << 10

// httpError is a reply that is not the JSON expected: an error
// status, an HTML page, or a 2xx that carries an error object.
type httpError struct {
	status     int
	body       []byte // the first sniffBytes at most
	html       bool
	retryAfter time.Duration
	// resetAfter is when the exhausted rate limit resets, for a 429 that
	// gave no Retry-After (see parseRateLimitReset).
	resetAfter time.Duration
}

func (e *httpError) Error() string {
	if e.html {
		return fmt.Sprintf("HTTP %d: an HTML page", e.status)
	}
	return fmt.Sprintf("HTTP %d", e.status)
}

func readHTTPError(resp *http.Response, n int64) error {
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, n))
	e := &httpError{status: resp.StatusCode, body: body, html: isHTML(resp.Header.Get("Content-Type"), body)}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
		e.retryAfter = parseRetryAfter(resp.Header, time.Now())
	}
	if resp.StatusCode == http.StatusTooManyRequests && e.retryAfter == 0 {
		e.resetAfter = parseRateLimitReset(resp.Header)
	}
	return e
}

// isHTML: the server says so, or the body does (a JSON body cannot start
// with "<", whatever its Content-Type claims).
func isHTML(contentType string, head []byte) bool {
	if mt, _, _ := mime.ParseMediaType(contentType); mt == "text/html" || mt == "application/xhtml+xml" {
		return true
	}
	h := bytes.ToLower(bytes.TrimSpace(head[:min(len(head), 512)]))
	return slices.ContainsFunc([]string{"<!doctype html", "<html", "<head", "<body"}, func(p string) bool { return bytes.HasPrefix(h, []byte(p)) })
}

// errorObject reports whether a 2xx body is an error rather than a reply:
// an "error" that is not null (OpenAI's shape, or a bare string) or vLLM's
// "object": "error", with no choices and no data beside it.
func errorObject(body []byte) bool {
	if !bytes.Contains(body, []byte(`"error"`)) {
		return false
	}
	var v struct {
		Error   json.RawMessage `json:"error"`
		Object  string          `json:"object"`
		Choices json.RawMessage `json:"choices"`
		Data    json.RawMessage `json:"data"`
	}
	if json.Unmarshal(body, &v) != nil || present(v.Choices) || present(v.Data) {
		return false
	}
	return present(v.Error) || v.Object == "error"
}

func present(raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "", "null", "[]", "{}", `""`, "false":
		return false
	}
	return true
}

// DefaultMaxReplyBytes is the cap on a chat reply's body (Config.MaxReplyBytes).
const DefaultMaxReplyBytes = 8 << 20

// EmbedReplyBytesPerText is added to the cap for each text of an embeddings
// request: a 3072-dimension vector as JSON floats is about 60 KiB, so a
// batch's reply grows with its texts where a chat reply does not.
const EmbedReplyBytesPerText = 128 << 10

// body is a reply read whole, in chunks that grow to a ceiling, so that a
// body over the cap fails having held no more than the cap (a growing
// buffer doubles) and a large one costs few
// allocations.
type body struct {
	chunks [][]byte
	n      int64
}

const (
	firstChunk = 16 << 10
	maxChunk   = 1 << 20
)

func readCapped(r io.Reader, limit int64, note string) (*body, error) {
	b := &body{}
	size := int64(firstChunk)
	for {
		// One byte beyond the cap tells a body of exactly the cap from a
		// longer one.
		buf := make([]byte, min(size, limit+1-b.n))
		n := 0
		var err error
		for n < len(buf) && err == nil {
			var m int
			m, err = r.Read(buf[n:])
			n += m
		}
		b.chunks = append(b.chunks, buf[:n])
		b.n += int64(n)
		if b.n > limit {
			return nil, &replyTooLarge{read: b.n, limit: limit, note: note}
		}
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			// A body cut short (io.ErrUnexpectedEOF) stays what it is:
			// retried as a broken connection.
			return nil, err
		}
		size = min(size*2, maxChunk)
	}
}

// head is the first n bytes at most, in one slice: the first chunk's
// when it holds them (readCapped always makes one).
func (b *body) head(n int) []byte {
	if c := b.chunks[0]; len(c) >= min(n, int(b.n)) {
		return c[:min(n, len(c))]
	}
	h, _ := io.ReadAll(io.LimitReader(b.reader(), int64(n)))
	return h
}

func (b *body) reader() io.Reader {
	rs := make([]io.Reader, len(b.chunks))
	for i, c := range b.chunks {
		rs[i] = bytes.NewReader(c)
	}
	return io.MultiReader(rs...)
}

// replyTooLarge: a reply body over the cap.
type replyTooLarge struct {
	declared int64 // Content-Length when it alone was over the cap
	read     int64 // bytes read when the cap was crossed
	limit    int64
	note     string // how the cap was sized, when not simply the setting
}

func (e *replyTooLarge) Error() string {
	limit := byteSize(e.limit)
	if e.note != "" {
		limit += " (" + e.note + ")"
	}
	if e.declared > 0 {
		return fmt.Sprintf("reply too large: the endpoint announced %s (Content-Length), over the %s cap; nothing was read (raise --max-reply-bytes if replies this large are expected)",
			byteSize(e.declared), limit)
	}
	return fmt.Sprintf("reply too large: reading stopped after %s, over the %s cap (raise --max-reply-bytes if replies this large are expected)",
		byteSize(e.read), limit)
}

// byteSize is "8.0 MiB (8388608 bytes)": the round figure to read, the
// exact one to set.
func byteSize(n int64) string {
	for i, unit := range []string{"GiB", "MiB", "KiB"} {
		if size := int64(1) << (30 - 10*i); n >= size {
			return fmt.Sprintf("%.1f %s (%d bytes)", float64(n)/float64(size), unit, n)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// parseRetryAfter reads Retry-After as seconds or an HTTP date, or
// Retry-After-Ms; 0 when absent. Retry-After-Ms comes first: Azure sends
// both, and Retry-After rounded up to whole seconds (openai-python reads
// them in this order).
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms > 0 {
		return time.Duration(ms * float64(time.Millisecond))
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		return time.Duration(max(secs, 0) * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0)
	}
	return 0
}

// parseRateLimitReset reads OpenAI's x-ratelimit-reset-requests and
// x-ratelimit-reset-tokens ("1s", "6m0s", "12ms"; whole seconds from some
// Azure deployments): the longest reset of the limits whose
// x-ratelimit-remaining-* is 0, or the shortest when none says it is
// spent; 0 when absent. A reset is when the limit is whole again: the
// longest wait that can be needed.
func parseRateLimitReset(h http.Header) time.Duration {
	var spent, least time.Duration
	for _, limit := range []string{"requests", "tokens"} {
		v := strings.TrimSpace(h.Get("X-Ratelimit-Reset-" + limit))
		d, err := time.ParseDuration(v)
		if err != nil {
			secs, ferr := strconv.ParseFloat(v, 64)
			if ferr != nil {
				continue
			}
			d = time.Duration(secs * float64(time.Second))
		}
		if d <= 0 {
			continue
		}
		if strings.TrimSpace(h.Get("X-Ratelimit-Remaining-"+limit)) == "0" {
			spent = max(spent, d)
		}
		if least == 0 || d < least {
			least = d
		}
	}
	return cmp.Or(spent, least)
}
