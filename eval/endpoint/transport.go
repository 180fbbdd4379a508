package endpoint

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// transport adapts go-openai's HTTP traffic to what ragscope needs:
//   - go-openai drops `"temperature": 0` (omitempty); the judge's verdict
//     calls must be sent at temperature 0 explicitly, so the body is
//     rewritten to carry the temperature the caller set;
//   - go-openai's errors hide response headers; Retry-After is captured here
//     into the attempt's context so the retry loop can honour it;
//   - embeddings replies in base64 are accepted even when floats were asked
//     (some servers ignore encoding_format).
type transport struct {
	base http.RoundTripper
}

type attemptKey struct{}

// attempt carries per-attempt facts between the retry loop and the transport.
type attempt struct {
	temperature *float32
	retryAfter  time.Duration
	// floats: embeddings were asked as floats; base64 replies are converted.
	floats bool
}

func withAttempt(ctx context.Context, a *attempt) context.Context {
	return context.WithValue(ctx, attemptKey{}, a)
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	a, _ := req.Context().Value(attemptKey{}).(*attempt)
	if a != nil && a.temperature != nil && req.Body != nil && strings.HasSuffix(req.URL.Path, "/chat/completions") {
		if err := setTemperature(req, *a.temperature); err != nil {
			return nil, err
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if a != nil && (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500) {
		a.retryAfter = parseRetryAfter(resp.Header, time.Now())
	}
	if a != nil && a.floats && resp.StatusCode == http.StatusOK && strings.HasSuffix(req.URL.Path, "/embeddings") {
		if err := floatEmbeddings(resp); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

func setTemperature(req *http.Request, temp float32) error {
	body, err := io.ReadAll(req.Body)
	req.Body.Close()
	if err != nil {
		return err
	}
	// go-openai leaves the field out only when it is 0. The bytes
	// "temperature": can only be a key: inside a JSON string the quotes
	// would be escaped. So a byte search, not a parse of the whole body.
	if !bytes.Contains(body, []byte(`"temperature":`)) && bytes.HasPrefix(body, []byte("{")) {
		field := `"temperature":` + strconv.FormatFloat(float64(temp), 'g', -1, 32)
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
		if secs < 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
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
	var r struct {
		Data []map[string]json.RawMessage `json:"data"`
	}
	if json.Unmarshal(body, &r) != nil {
		return nil
	}
	var rest map[string]json.RawMessage
	if json.Unmarshal(body, &rest) != nil {
		return nil
	}
	changed := false
	for _, d := range r.Data {
		var s string
		if json.Unmarshal(d["embedding"], &s) != nil {
			continue
		}
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil || len(raw)%4 != 0 {
			continue
		}
		vec := make([]float32, len(raw)/4)
		for i := range vec {
			vec[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[i*4:]))
		}
		d["embedding"], _ = json.Marshal(vec)
		changed = true
	}
	if !changed {
		return nil
	}
	rest["data"], _ = json.Marshal(r.Data)
	nb, err := json.Marshal(rest)
	if err != nil {
		return nil
	}
	resp.Body = io.NopCloser(bytes.NewReader(nb))
	resp.ContentLength = int64(len(nb))
	resp.Header.Del("Content-Length")
	return nil
}
