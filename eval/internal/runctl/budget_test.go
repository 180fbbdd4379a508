package runctl

import (
	"context"
	"runtime"
	"testing"
)

// The text budget admits a sample while the others leave it room, one
// bigger than the budget alone, and never waits when there is no budget.
func TestTextBudget(t *testing.T) {
	for _, c := range []struct {
		name    string
		max     int64
		held    []int64 // acquired and not released
		next    int64
		waits   bool
		release int64 // releasing this one of held lets next in
	}{
		{"no budget", 0, []int64{1 << 30}, 1 << 30, false, 0},
		{"room left", 10, []int64{4}, 6, false, 0},
		{"no room", 10, []int64{8}, 5, true, 8},
		{"bigger than the budget waits for an empty room", 10, []int64{1}, 50, true, 1},
		{"bigger than the budget, alone", 10, nil, 50, false, 0},
		{"after one bigger than the budget", 10, []int64{50}, 1, true, 50},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := NewBudget(c.max)
			for _, n := range c.held {
				b.Acquire(context.Background(), n)
			}
			in := make(chan struct{})
			go func() {
				b.Acquire(context.Background(), c.next)
				close(in)
			}()
			if !c.waits {
				<-in
				return
			}
			// It is admitted, or parks waiting for room; a release then
			// lets it in.
			for {
				select {
				case <-in:
					t.Fatalf("%d admitted beside %v within a budget of %d", c.next, c.held, c.max)
				default:
				}
				b.mu.Lock()
				parked := b.waiting > 0
				b.mu.Unlock()
				if parked {
					break
				}
				runtime.Gosched()
			}
			b.Release(c.release)
			<-in
		})
	}
	// A cancelled run's acquirer does not wait.
	b := NewBudget(10)
	b.Acquire(context.Background(), 10)
	ctx, cancel := context.WithCancel(context.Background())
	in := make(chan struct{})
	go func() {
		b.Acquire(ctx, 5)
		close(in)
	}()
	cancel()
	<-in
}
