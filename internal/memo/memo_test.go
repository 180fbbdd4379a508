package memo

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Goroutines that ask for a text being analysed wait for that analysis
// instead of making their own: the metrics of a sample all ask for its
// chunks at once, and a big chunk analysed by each was that many times its
// analysis in memory.
func TestMemoComputesOnce(t *testing.T) {
	for _, n := range []int{2, 4, 16} {
		m := New[int](16)
		var builds atomic.Int32
		release := make(chan struct{})
		build := func(string) int {
			builds.Add(1)
			<-release
			return 7
		}
		var wg sync.WaitGroup
		got := make([]int, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i] = m.Get("chunk", build)
			}()
		}
		// Either every goroutine builds (each its own analysis) or one
		// does and the others wait for it.
		for {
			sh := m.shardOf("chunk")
			sh.mu.Lock()
			waiting := sh.waiting
			sh.mu.Unlock()
			if int(builds.Load()) == n || (builds.Load() == 1 && waiting == n-1) {
				break
			}
			runtime.Gosched()
		}
		close(release)
		wg.Wait()
		if b := builds.Load(); b != 1 {
			t.Errorf("%d goroutines: %d analyses of the same text, want 1", n, b)
		}
		for i, v := range got {
			if v != 7 {
				t.Errorf("%d goroutines: goroutine %d got %d", n, i, v)
			}
		}
	}
}

// What a memo keeps of big texts is bounded in bytes: analyses of records
// of some MiB are let go, the oldest first, where 4096 of them were kept.
func TestMemoBoundsBigTexts(t *testing.T) {
	m := New[int](4096)
	id := func(string) int { return 1 }
	var big []string
	for i := range 5 {
		k := strings.Repeat(string(rune('a'+i)), 6<<20)
		big = append(big, k)
		m.Get(k, id)
		m.Get("small "+k[:1], id)
	}
	held := 0
	for _, k := range big {
		if _, ok := m.shardOf(k).m[k]; ok {
			held += len(k)
		}
	}
	if held > maxBigText {
		t.Errorf("the memo holds %d MiB of big texts, want at most %d", held>>20, maxBigText>>20)
	}
	if _, ok := m.shardOf(big[4]).m[big[4]]; !ok {
		t.Error("the newest big text was let go")
	}
	for _, k := range big {
		if _, ok := m.shardOf("small " + k[:1]).m["small "+k[:1]]; !ok {
			t.Errorf("small text %q let go", "small "+k[:1])
		}
	}
}
