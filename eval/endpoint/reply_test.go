package endpoint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

// chatPrefix opens a chat reply whose content never closes: the JSON
// decoder has to keep buffering, the worst case for memory.
const chatPrefix = `{"id":"x","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"`

// validPadded is a well-formed chat reply of exactly n bytes, padded inside
// its content: the JSON decoder needs every byte of it.
func validPadded(n int) string {
	head, tail := `{"choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"{}`, `"}}]}`
	return head + strings.Repeat(" ", n-len(head)-len(tail)) + tail
}

func TestReplyBodyIsBounded(t *testing.T) {
	const limit = 1 << 20
	cases := []struct {
		name    string
		reply   func() fakejudge.Reply
		ok      bool
		errHas  []string
		maxHeap uint64 // bytes allocated by the call, at most
	}{
		{"endless body", func() fakejudge.Reply { return fakejudge.Reply{Stream: filler(chatPrefix, -1)} }, false,
			[]string{"reply too large", "1.0 MiB (1048576 bytes) cap", "reading stopped after 1.0 MiB (1048577 bytes)", "--max-reply-bytes"}, 32 << 20},
		{"1 GiB announced", func() fakejudge.Reply {
			return fakejudge.Reply{Stream: filler(chatPrefix, 1<<30), Length: 1 << 30}
		}, false, []string{"announced 1.0 GiB (1073741824 bytes) (Content-Length), over the 1.0 MiB (1048576 bytes) cap", "nothing was read", "--max-reply-bytes"}, 8 << 20},
		{"1 GiB not announced", func() fakejudge.Reply { return fakejudge.Reply{Stream: filler(chatPrefix, 1<<30)} }, false,
			[]string{"reading stopped after 1.0 MiB", "--max-reply-bytes"}, 32 << 20},
		{"endless HTML error page", func() fakejudge.Reply {
			return fakejudge.Reply{Status: 502, ContentType: "text/html", Stream: filler("<html><title>Bad gateway</title>", -1)}
		}, false, []string{"HTTP 502: the endpoint answered with an HTML page", "Bad gateway"}, 32 << 20},
		{"just under the cap", func() fakejudge.Reply { return fakejudge.Reply{Body: validPadded(limit)} }, true, nil, 0},
		{"one byte over", func() fakejudge.Reply { return fakejudge.Reply{Body: validPadded(limit + 1)} }, false,
			[]string{"reading stopped after 1.0 MiB (1048577 bytes), over the 1.0 MiB (1048576 bytes) cap"}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakejudge.New(func(*fakejudge.Request) fakejudge.Reply { return tc.reply() })
			defer srv.Close()
			c := newTestClient(t, srv.BaseURL(), Config{MaxReplyBytes: limit, MaxRetries: 2})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := c.Chat(context.Background(), chatReq("big"))
			runtime.ReadMemStats(&after)
			if tc.ok {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			f := failureOf(t, err)
			for _, want := range tc.errHas {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error %q does not say %q", err, want)
				}
			}
			if eval.StatusOf(err) != eval.StatusJudgeError {
				t.Errorf("status %s", eval.StatusOf(err))
			}
			// A reply too large is not asked for again; an error page is
			// a 502 like any other, retried.
			wantCalls := 1
			if f.Kind != KindReplyTooLarge {
				wantCalls = 3
			}
			if n := srv.Count("big"); n != wantCalls {
				t.Errorf("%d requests, want %d", n, wantCalls)
			}
			if tc.maxHeap > 0 {
				if got := after.TotalAlloc - before.TotalAlloc; got > tc.maxHeap {
					t.Errorf("the call allocated %d MiB", got>>20)
				}
			}
		})
	}
}

// TestEmbeddingsReplyCapScales: an embeddings reply may be larger by
// EmbedReplyBytesPerText for each text, so a batch of large vectors fits
// where a chat reply of the same size would not.
func TestEmbeddingsReplyCapScales(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	// 3072 dimensions, as text-embedding-3-large: some 50 KiB of JSON each.
	srv.Set(func(s *fakejudge.Server) {
		s.Embed = func(string) []float32 {
			v := make([]float32, 3072)
			for i := range v {
				v[i] = -0.0123456789 + float32(i)*1e-7
			}
			return v
		}
	})
	const limit = 64 << 10
	c := newTestClient(t, srv.BaseURL(), Config{MaxReplyBytes: limit, MaxRetries: 1})
	texts := make([]string, 16)
	for i := range texts {
		texts[i] = fmt.Sprintf("text %d", i)
	}
	resp, err := c.Embed(context.Background(), eval.EmbedRequest{Model: "embed-model", Texts: texts})
	if err != nil {
		t.Fatalf("16 vectors of 3072 dimensions did not fit: %v", err)
	}
	if len(resp.Vectors) != 16 || len(resp.Vectors[0]) != 3072 {
		t.Fatalf("%d vectors", len(resp.Vectors))
	}
	// The same server, streaming without end: the cap holds, and says how
	// it was sized.
	srv.Set(func(s *fakejudge.Server) {
		s.EmbedFault = func([]string) (fakejudge.Reply, bool) {
			return fakejudge.Reply{Stream: filler(`{"object":"list","data":[{"embedding":[`, -1)}, true
		}
	})
	_, err = c.Embed(context.Background(), eval.EmbedRequest{Model: "embed-model", Texts: texts[:2]})
	f := failureOf(t, err)
	if f.Kind != KindReplyTooLarge || !strings.Contains(err.Error(), "--max-reply-bytes 65536 plus 131072 for each of the 2 texts") {
		t.Fatalf("got %v", err)
	}
}

// countingReader counts what the server sent of a body.
type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// peakMem samples the process's memory until stop is closed.
func peakMem(stop <-chan struct{}) (heapInuse, sys uint64) {
	var ms runtime.MemStats
	for {
		runtime.ReadMemStats(&ms)
		heapInuse, sys = max(heapInuse, ms.HeapInuse), max(sys, ms.Sys)
		select {
		case <-stop:
			return
		case <-time.After(time.Millisecond):
		}
	}
}

// BenchmarkHugeReply: calls that each get a generated 1 GiB reply (the
// body is produced as it is sent, never stored). It reports the peak
// HeapInuse and Sys of the process while the replies stream in, and how
// much of each gigabyte the server got to send before the client hung up.
// Sys only grows over a process's life: run one case alone for its own.
func BenchmarkHugeReply(b *testing.B) {
	const gig = 1 << 30
	for _, bc := range []struct {
		name     string
		calls    int
		announce bool
		limit    int64
	}{
		{"1call/chunked", 1, false, DefaultMaxReplyBytes},
		{"16calls/chunked", 16, false, DefaultMaxReplyBytes},
		{"16calls/content-length", 16, true, DefaultMaxReplyBytes},
		{"1call/chunked/cap=64MiB", 1, false, 64 << 20},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var sent atomic.Int64
			srv := fakejudge.New(func(*fakejudge.Request) fakejudge.Reply {
				rep := fakejudge.Reply{Stream: countingReader{filler(chatPrefix, gig), &sent}}
				if bc.announce {
					rep.Length = gig
				}
				return rep
			})
			defer srv.Close()
			c := newTestClient(b, srv.BaseURL(), Config{Concurrency: bc.calls, MaxRetries: 0, MaxReplyBytes: bc.limit})
			for b.Loop() {
				runtime.GC()
				stop := make(chan struct{})
				peak := make(chan [2]uint64)
				go func() {
					h, s := peakMem(stop)
					peak <- [2]uint64{h, s}
				}()
				var wg sync.WaitGroup
				var tooLarge atomic.Int64
				for range bc.calls {
					wg.Go(func() {
						_, err := c.Chat(context.Background(), chatReq("huge"))
						if f := Classify(err); f.Kind == KindReplyTooLarge {
							tooLarge.Add(1)
						}
					})
				}
				wg.Wait()
				close(stop)
				p := <-peak
				if int(tooLarge.Load()) != bc.calls {
					b.Fatalf("%d of %d calls ended as too large", tooLarge.Load(), bc.calls)
				}
				b.ReportMetric(float64(p[0])/(1<<20), "peak-HeapInuse-MiB")
				b.ReportMetric(float64(p[1])/(1<<20), "peak-Sys-MiB")
			}
			b.ReportMetric(float64(sent.Load())/float64(b.N*bc.calls)/(1<<20), "sent-MiB/call")
		})
	}
}

// filler is a generated body: prefix, then filler bytes up to n bytes in
// all, or without end when n < 0. It holds only one small block, however
// large the body: a test can send a gigabyte without storing it.
func filler(prefix string, n int64) io.Reader {
	r := &fillerReader{prefix: []byte(prefix)}
	if n < 0 {
		return r
	}
	return io.LimitReader(r, n)
}

type fillerReader struct{ prefix []byte }

var fillerBlock = []byte(strings.Repeat("abcdefghijklmnopqrstuvwxyz012345", 1024))

func (f *fillerReader) Read(p []byte) (int, error) {
	if len(f.prefix) > 0 {
		n := copy(p, f.prefix)
		f.prefix = f.prefix[n:]
		return n, nil
	}
	n := 0
	for n < len(p) {
		n += copy(p[n:], fillerBlock)
	}
	return n, nil
}

// A reply the caller refuses (Validate) is asked again, and billed: the
// call's usage is every attempt's, not the last one's.
func TestMalformedRepliesAreBilled(t *testing.T) {
	var n atomic.Int64
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		if n.Add(1) < 3 {
			return fakejudge.Reply{Choices: []string{`{"verdict": "maybe"}`}}
		}
		return fakejudge.Reply{Choices: []string{`{"verdict": 1}`}}
	})
	defer srv.Close()
	c := newTestClient(t, srv.BaseURL(), Config{MaxRetries: 3})
	req := chatReq("t")
	req.Validate = func(s string) error {
		if s != `{"verdict": 1}` {
			return errors.New("verdict is not 0 or 1")
		}
		return nil
	}
	out, err := c.Chat(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var want eval.Usage
	for i, q := range srv.Requests() {
		reply := `{"verdict": "maybe"}`
		if i == 2 {
			reply = `{"verdict": 1}`
		}
		p, c := fakejudge.Usage(q.Model, q.Messages, []string{reply})
		want.PromptTokens += p
		want.CompletionTokens += c
	}
	if n.Load() != 3 || out.Usage.PromptTokens != want.PromptTokens || out.Usage.CompletionTokens != want.CompletionTokens {
		t.Fatalf("%d requests, usage %+v, want the three attempts' %+v", n.Load(), out.Usage, want)
	}
}
