package endpoint

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
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

// transport does for go-openai's HTTP traffic what go-openai does not:
//   - it writes the temperature into a chat body even when 0 (go-openai
//     drops it as empty), and the reasoning switches past go-openai's
//     checks of reasoning_effort;
//   - it reads a 2xx body whole up to a cap and refuses a Content-Length
//     over the cap unread (go-openai reads whatever arrives);
//   - it turns error statuses, HTML pages and 200s carrying an error object
//     into an *httpError that keeps what go-openai's errors hide
//     (Retry-After, the content type, the error object);
//   - it accepts base64 embeddings when floats were asked, and reads the
//     "reasoning" field (Ollama, OpenRouter, vLLM) go-openai does not decode.
type transport struct {
	base http.RoundTripper
	// query is the base URL's query string, added to every request.
	query url.Values
}

type attemptKey struct{}

// attempt carries per-attempt facts between the retry loop and the transport.
type attempt struct {
	temperature *float32
	// extra are body fields to add to a chat request (reasoning switches).
	extra map[string]any
	// reasoning is each choice's "reasoning" field, by choice index.
	reasoning map[int]string
	// floats: embeddings were asked as floats; base64 replies are converted.
	floats bool
	// maxReply caps the body; maxReplyNote says how the cap was sized, for
	// the error.
	maxReply     int64
	maxReplyNote string
	// host (host:port) and endpoint (host and path) of the request, set by
	// the transport, for errors that must not quote the query string.
	host, endpoint string
}

// sniffBytes is how much of a reply is looked at before go-openai decodes
// it: error objects and error pages are small, so a reply longer than this
// is not one.
const sniffBytes = 64 << 10

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	a, _ := req.Context().Value(attemptKey{}).(*attempt)
	if a == nil {
		a = &attempt{}
	}
	a.host, a.endpoint = req.URL.Host, req.URL.Host+req.URL.Path
	if len(t.query) > 0 {
		req = req.Clone(req.Context())
		q := req.URL.Query()
		for k, vs := range t.query {
			if _, set := q[k]; !set {
				q[k] = vs
			}
		}
		req.URL.RawQuery = q.Encode()
	}
	chat := strings.HasSuffix(req.URL.Path, "/chat/completions")
	if (a.temperature != nil || len(a.extra) > 0) && req.Body != nil && chat {
		if err := rewriteBody(req, a.temperature, a.extra); err != nil {
			return nil, err
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	limit := orDefault(a.maxReply, DefaultMaxReplyBytes)
	if resp.StatusCode >= 400 {
		return nil, readHTTPError(resp, min(int64(sniffBytes), limit))
	}
	if resp.StatusCode < 200 || resp.StatusCode >= 300 {
		return resp, nil // redirects are the http.Client's business
	}
	if resp.ContentLength > limit {
		resp.Body.Close()
		return nil, &replyTooLarge{declared: resp.ContentLength, limit: limit, note: a.maxReplyNote}
	}
	body, err := readCapped(resp.Body, limit, a.maxReplyNote)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	head := body.head(sniffBytes)
	if html := isHTML(resp.Header.Get("Content-Type"), head); html || (body.n <= sniffBytes && errorObject(head)) {
		return nil, &httpError{status: resp.StatusCode, body: head, html: html}
	}
	resp.Body = io.NopCloser(body.reader())
	resp.ContentLength = body.n
	if chat {
		a.reasoning = reasoningFields(body)
	}
	if a.floats && strings.HasSuffix(req.URL.Path, "/embeddings") {
		if err := floatEmbeddings(resp); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// httpError is a reply that is not the JSON go-openai expects: an error
// status, an HTML page, or a 2xx that carries an error object.
type httpError struct {
	status     int
	body       []byte // the first sniffBytes at most
	html       bool
	retryAfter time.Duration
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
// body over the cap fails having held no more than the cap (go-openai's
// decoder grows its buffer by doubling) and a large one costs few
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

// contains reports whether the body holds needle, across its chunks'
// boundaries too.
func (b *body) contains(needle []byte) bool {
	var tail []byte // the end of the previous chunk, too short to hold needle
	for _, c := range b.chunks {
		if bytes.Contains(c, needle) || bytes.Contains(append(tail, c[:min(len(c), len(needle)-1)]...), needle) {
			return true
		}
		tail = append([]byte(nil), c[max(0, len(c)-len(needle)+1):]...)
	}
	return false
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

// rewriteBody adds the temperature when go-openai left it out and the
// extra fields to a chat request's body.
func rewriteBody(req *http.Request, temp *float32, extra map[string]any) error {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return err
	}
	// go-openai leaves the field out only when it is 0. The bytes
	// "temperature": can only be a key: inside a JSON string the quotes
	// would be escaped. So a byte search, not a parse of the whole body.
	var fields []string
	if temp != nil && !bytes.Contains(body, []byte(`"temperature":`)) {
		fields = append(fields, `"temperature":`+strconv.FormatFloat(float64(*temp), 'g', -1, 32))
	}
	if len(extra) > 0 {
		// A map marshals with its keys sorted: the members, braces off.
		m, err := json.Marshal(extra)
		if err != nil {
			return err
		}
		fields = append(fields, string(m[1:len(m)-1]))
	}
	if len(fields) > 0 && bytes.HasPrefix(body, []byte("{")) {
		field := strings.Join(fields, ",")
		if len(body) > 2 {
			field += ","
		}
		body = append([]byte("{"+field), body[1:]...)
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	req.ContentLength = int64(len(body))
	req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return nil
}

// reasoningFields reads the "reasoning" field of each choice's message,
// which go-openai does not decode; nil when the body has none.
func reasoningFields(b *body) map[int]string {
	if !b.contains([]byte(`"reasoning"`)) {
		return nil // most replies: no copy of the body
	}
	raw, _ := io.ReadAll(b.reader())
	var v struct {
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Reasoning string `json:"reasoning"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	out := map[int]string{}
	for _, c := range v.Choices {
		if c.Message.Reasoning != "" {
			out[c.Index] = c.Message.Reasoning
		}
	}
	return out
}

// parseRetryAfter reads Retry-After as seconds or an HTTP date; 0 when absent.
func parseRetryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		// Some gateways send the millisecond variant only.
		if ms, err := strconv.ParseFloat(strings.TrimSpace(h.Get("Retry-After-Ms")), 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
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

// floatEmbeddings rewrites base64 embedding vectors into float arrays.
func floatEmbeddings(resp *http.Response) error {
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var rest map[string]json.RawMessage
	var data []map[string]json.RawMessage
	if json.Unmarshal(body, &rest) != nil || json.Unmarshal(rest["data"], &data) != nil {
		return nil
	}
	changed := false
	for _, d := range data {
		var s string
		if json.Unmarshal(d["embedding"], &s) != nil {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(raw)%4 != 0 {
			continue
		}
		vec := make([]float32, len(raw)/4)
		_, _ = binary.Decode(raw, binary.LittleEndian, vec) // cannot fail: raw is exactly vec's size
		d["embedding"], _ = json.Marshal(vec)
		changed = true
	}
	if !changed {
		return nil
	}
	// Neither can fail: every value is valid JSON already.
	rest["data"], _ = json.Marshal(data)
	nb, _ := json.Marshal(rest)
	resp.Body = io.NopCloser(bytes.NewReader(nb))
	resp.ContentLength = int64(len(nb))
	resp.Header.Del("Content-Length")
	return nil
}
