package tui

import (
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
)

// benchResults builds n fully scored results with varied scores, statuses
// and question lengths, so sorting and drawing do real work.
func benchResults(n int) []*eval.Result {
	out := make([]*eval.Result, n)
	for i := range out {
		out[i] = benchResult(i)
	}
	return out
}

// BenchmarkKeyToFrame100k measures, with 100,000 rows in the table, the
// time from a key press (j, G, s in turn) through Update to a rendered
// View, and reports the median and the heap in use.
func BenchmarkKeyToFrame100k(b *testing.B) {
	results := benchResults(100_000)
	base := heapInUse()
	m := New(Options{Dataset: "bench.jsonl", Results: results, Started: fixedStart})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	keys := []tea.KeyPressMsg{keyMsg("j"), keyMsg("G"), keyMsg("s")}
	var durs []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		k := keys[i%len(keys)]
		start := time.Now()
		m.Update(k)
		_ = m.View()
		durs = append(durs, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Nanoseconds()), "median-ns/key-frame")
	b.ReportMetric(float64(durs[len(durs)*95/100].Nanoseconds()), "p95-ns/key-frame")
	total := heapInUse()
	b.ReportMetric(float64(total)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(total-base)/(1<<20), "tui-heap-MiB")
	// The heap figures miss what the OS sees: runtime overhead, stacks and
	// freed but unreturned spans. RSS is the number a user compares with top.
	if rss, ok := residentMiB(); ok {
		b.ReportMetric(rss, "rss-MiB")
	}
	runtime.KeepAlive(m)
	runtime.KeepAlive(results)
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// residentMiB reads the resident set size (VmRSS) of this process from
// /proc; it reports false where there is no /proc (macOS, Windows).
func residentMiB() (float64, bool) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest) // "123456 kB"
			if len(f) != 2 || f[1] != "kB" {
				return 0, false
			}
			kb, err := strconv.ParseFloat(f[0], 64)
			if err != nil {
				return 0, false
			}
			return kb / 1024, true
		}
	}
	return 0, false
}

// BenchmarkSortCold100k is the worst case of s: a column never sorted
// since the rows last changed.
func BenchmarkSortCold100k(b *testing.B) {
	m := New(Options{Results: benchResults(100_000)})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for b.Loop() {
		m.sorted = nil
		m.Update(keyMsg("s"))
		_ = m.View()
	}
}
