package endpoint

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval/fakejudge"
)

// stormConcurrency is the --concurrency of the report: 64 callers at once.
const stormConcurrency = 64

// burstGap is a silence at the server that ends the first burst: half the
// shortest pause a Retry-After: 1 makes.
const burstGap = 500 * time.Millisecond

type stormResult struct {
	storm       time.Duration
	arrivals    []time.Duration // since the first request, in order
	throttled   int             // 429s the server sent
	failed      []error
	burst       int           // requests in the first burst
	burstEnd    time.Duration // the last of them
	afterBurst  int           // requests from then to the storm's end
	maxPerSec   int           // most requests in any one-second window after the burst
	recovered   time.Duration // from the storm's end to the last of its calls done
	mid         LimitState    // the client's limiter, seen at the storm's second probe
	end         LimitState    // after the storm and a wave of calls that succeed
	peakServing int64         // most requests the server held at once, after the storm
}

// runStorm sends stormConcurrency calls at a server that answers every
// request with 429 and Retry-After: 1 for storm (from its first request),
// then recovers; once all of them are done, a second wave of 400 calls
// checks that the client's throughput came back.
func runStorm(tb testing.TB, storm time.Duration) stormResult {
	tb.Helper()
	var (
		mu       sync.Mutex
		first    time.Time
		arrivals []time.Duration
		res      = stormResult{storm: storm}
		client   *Client
		serving  atomic.Int64
		peak     atomic.Int64
		wave2    atomic.Bool
	)
	srv := fakejudge.New(func(r *fakejudge.Request) fakejudge.Reply {
		now := time.Now()
		mu.Lock()
		if first.IsZero() {
			first = now
		}
		since := now.Sub(first)
		arrivals = append(arrivals, since)
		stormy := since < storm
		if stormy {
			res.throttled++
			// The second request after the first pause is a probe made
			// while the endpoint is held back: what a UI would show.
			if len(arrivals) > 1 && since >= time.Second && res.mid.Max == 0 {
				res.mid = client.Limit()
			}
		}
		mu.Unlock()
		if stormy {
			return fakejudge.Reply{Status: 429, Header: map[string]string{"Retry-After": "1"},
				Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`}
		}
		if wave2.Load() {
			n := serving.Add(1)
			defer serving.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			// Simulated latency, so calls overlap at the server as they
			// would at a model; nothing waits on it to synchronise.
			time.Sleep(20 * time.Millisecond)
		}
		return fakejudge.Reply{Choices: []string{`{"ok": true}`}}
	})
	defer srv.Close()
	c := newTestClient(tb, srv.BaseURL(), Config{Concurrency: stormConcurrency, MaxRetries: 10000,
		BackoffBase: 100 * time.Millisecond, BackoffMax: time.Second})
	// The handler reads client under mu: loopback traffic gives the race
	// detector no happens-before edge from here to the server's goroutines.
	mu.Lock()
	client = c
	mu.Unlock()

	run := func(n int) []error {
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				_, errs[i] = c.Chat(context.Background(), chatReq("storm"))
			})
		}
		wg.Wait()
		var failed []error
		for _, err := range errs {
			if err != nil {
				failed = append(failed, err)
			}
		}
		return failed
	}
	failed := run(stormConcurrency)
	mu.Lock()
	res.arrivals = append([]time.Duration(nil), arrivals...)
	res.recovered = time.Since(first) - storm
	mu.Unlock()
	wave2.Store(true)
	failed = append(failed, run(400)...)
	mu.Lock()
	defer mu.Unlock()
	res.failed = failed
	res.end = c.Limit()
	res.peakServing = peak.Load()

	sort.Slice(res.arrivals, func(i, j int) bool { return res.arrivals[i] < res.arrivals[j] })
	// The first burst is what was sent before the first 429 came back;
	// it ends at the first silence, which the first pause makes: a second
	// at least. Drawn so, a loaded machine's stragglers count in the burst
	// and a limiter that did not pause shows as one endless burst.
	res.burst = len(res.arrivals)
	for i := 1; i < len(res.arrivals); i++ {
		if res.arrivals[i]-res.arrivals[i-1] >= burstGap {
			res.burst = i
			break
		}
	}
	res.burstEnd = res.arrivals[res.burst-1]
	var after []time.Duration
	for _, at := range res.arrivals[res.burst:] {
		if at < storm {
			after = append(after, at)
		}
	}
	res.afterBurst = len(after)
	for i := range after {
		n := sort.Search(len(after), func(j int) bool { return after[j] >= after[i]+time.Second })
		res.maxPerSec = max(res.maxPerSec, n-i)
	}
	return res
}

func (r stormResult) String() string {
	return fmt.Sprintf("storm %s: a first burst of %d requests over %s, %d after (at most %d in a second), %d throttled; "+
		"its calls done %s after it; mid-storm %q; then %d allowed of %d, %d served at once",
		r.storm, r.burst, r.burstEnd.Round(time.Millisecond), r.afterBurst, r.maxPerSec, r.throttled, r.recovered.Round(time.Millisecond), r.mid.String(),
		r.end.Allowed, r.end.Max, r.peakServing)
}

// TestRateLimitStorm: 64 callers against an endpoint that answers 429 with
// Retry-After: 1 to everything for five seconds. Before the shared limiter
// the endpoint got 64 requests every second, all at once; now it gets the
// first burst, then about one probe per pause.
func TestRateLimitStorm(t *testing.T) {
	const storm = 5 * time.Second
	r := runStorm(t, storm)
	t.Log(r)

	if len(r.failed) > 0 {
		t.Fatalf("%d calls failed, first: %v", len(r.failed), r.failed[0])
	}
	if r.burst == 0 || r.burst > stormConcurrency {
		t.Fatalf("a first burst of %d requests; want 1 to %d (one per caller)", r.burst, stormConcurrency)
	}
	// A pause lasts at least the second asked, so a one-second window
	// holds at most two probes; one more for luck on a loaded machine.
	if r.maxPerSec > 3 {
		t.Fatalf("%d requests within one second after the first burst, want at most 3: %v", r.maxPerSec, r.arrivals)
	}
	if max := int(storm/time.Second) + 2; r.afterBurst > max {
		t.Fatalf("%d requests after the first burst over %s, want at most %d", r.afterBurst, storm, max)
	}
	if r.mid.Allowed >= r.mid.Max || !strings.HasPrefix(r.mid.String(), "rate limited: ") {
		t.Fatalf("mid-storm the limiter shows %+v %q: want fewer allowed than %d", r.mid, r.mid.String(), stormConcurrency)
	}
	if r.end.Throttled != int64(r.throttled) {
		t.Fatalf("the limiter counted %d throttles, the server sent %d", r.end.Throttled, r.throttled)
	}
	// The storm's own calls finish about a pause after its end; the bound
	// is loose for loaded machines, a limiter stuck shut would miss it.
	if r.recovered > 10*time.Second {
		t.Fatalf("the calls finished %s after the storm ended", r.recovered)
	}
	// Throughput is back: the limit crept up to the configured maximum and
	// the calls overlap at the server again.
	if r.end.Allowed != stormConcurrency || r.end.String() != "" {
		t.Fatalf("after 464 successes the limiter is at %+v (%q), want %d allowed", r.end, r.end.String(), stormConcurrency)
	}
	if r.peakServing < 16 {
		t.Fatalf("at most %d requests served at once after the storm", r.peakServing)
	}
}

// BenchmarkRateLimitStorm is TestRateLimitStorm over 30 seconds, the length
// of the storm reported; run with -benchtime 1x. It reports the request
// rate the server saw during the storm after the first burst (req/s), over
// the whole storm (req/s-overall), the first burst, the most requests in
// one second after it, and how long the calls took to finish once it ended.
func BenchmarkRateLimitStorm(b *testing.B) {
	for b.Loop() {
		r := runStorm(b, 30*time.Second)
		b.Log(r)
		if len(r.failed) > 0 {
			b.Fatalf("%d calls failed, first: %v", len(r.failed), r.failed[0])
		}
		b.ReportMetric(float64(r.afterBurst)/(r.storm-r.burstEnd).Seconds(), "req/s")
		b.ReportMetric(float64(r.burst+r.afterBurst)/r.storm.Seconds(), "req/s-overall")
		b.ReportMetric(float64(r.burst), "burst-req")
		b.ReportMetric(float64(r.maxPerSec), "max-req-in-1s")
		b.ReportMetric(r.recovered.Seconds(), "recovery-s")
	}
}
