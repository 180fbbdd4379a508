package cache

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

func TestLiveUpdatesSeesWritesOfItsRunOnly(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	for _, id := range []string{"run-a", "run-b"} {
		if err := db.PutRun(report.RunInfo{ID: id, Samples: 3}); err != nil {
			t.Fatal(err)
		}
	}
	start, err := db.LiveUpdates(ctx, "run-a", -1, 0)
	if err != nil || start.Reset || len(start.Results) != 0 {
		t.Fatalf("position: %+v, %v", start, err)
	}
	// Nothing new: the wait passes with an empty batch at the same position.
	if b, err := db.LiveUpdates(ctx, "run-a", start.Seq, time.Millisecond); err != nil || b.Seq != start.Seq || len(b.Results) != 0 || b.Run != nil {
		t.Fatalf("idle LiveUpdates: %+v, %v", b, err)
	}
	put := func(run string, i int, answer string) {
		t.Helper()
		if err := db.PutResult(run, &eval.Result{Index: i, Answer: answer}); err != nil {
			t.Fatal(err)
		}
	}
	put("run-b", 0, "other run")
	put("run-a", 1, "first")
	put("run-a", 1, "rewritten")
	put("run-a", 2, "second")
	finished := time.Now().UTC()
	if err := db.PutRun(report.RunInfo{ID: "run-a", Samples: 3, FinishedAt: &finished}); err != nil {
		t.Fatal(err)
	}
	b, err := db.LiveUpdates(ctx, "run-a", start.Seq, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Results) != 2 || b.Results[0].Answer != "rewritten" || b.Results[1].Index != 2 {
		t.Fatalf("results %+v: want sample 1 (its newest write) then 2, nothing of run-b", b.Results)
	}
	if b.Run == nil || b.Run.FinishedAt == nil {
		t.Fatalf("the finished run record is missing: %+v", b.Run)
	}
	// A position from another holder of the file (or a trimmed log) resets.
	for _, after := range []int64{1, b.Seq + 10} {
		if r, _ := db.LiveUpdates(ctx, "run-a", after, time.Millisecond); !r.Reset {
			t.Errorf("after %d: no reset", after)
		}
	}
}

func TestLiveUpdatesWakeOnWrite(t *testing.T) {
	db := openTemp(t)
	if err := db.PutRun(report.RunInfo{ID: "r", Samples: 1}); err != nil {
		t.Fatal(err)
	}
	pos, _ := db.LiveUpdates(context.Background(), "r", -1, 0)
	got := make(chan LiveBatch, 1)
	go func() {
		b, _ := db.LiveUpdates(context.Background(), "r", pos.Seq, time.Minute)
		got <- b
	}()
	if err := db.PutResult("r", &eval.Result{Index: 0}); err != nil {
		t.Fatal(err)
	}
	if b := <-got; len(b.Results) != 1 {
		t.Fatalf("woken with %+v", b)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := db.LiveUpdates(ctx, "r", pos.Seq+1, time.Minute); err == nil {
		t.Fatal("a cancelled LiveUpdates returned no error")
	}
}

func TestClaimOneCallerPays(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	release, granted, err := db.Claim(ctx, "k")
	if err != nil || !granted {
		t.Fatalf("first claim: %v %v", granted, err)
	}
	waited := make(chan bool, 1)
	go func() {
		_, g, _ := db.Claim(ctx, "k")
		waited <- g
	}()
	for {
		n := claimWaiters()
		if n == 1 {
			break
		}
		runtime.Gosched()
	}
	other, g2, _ := db.Claim(ctx, "other key")
	if !g2 {
		t.Fatal("a claim on another key waited")
	}
	other()
	release()
	release() // twice is harmless
	if <-waited {
		t.Fatal("the waiter was granted the claim instead of being told to look again")
	}
	if r, g, _ := db.Claim(ctx, "k"); !g {
		t.Fatal("released key cannot be claimed")
	} else {
		r()
	}
}
