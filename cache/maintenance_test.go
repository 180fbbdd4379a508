package cache

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

func fill(t testing.TB, db *DB, model string, n int) {
	t.Helper()
	c := db.Client(&fakeInner{}, ReadWrite)
	ctx := context.Background()
	for i := 0; i < n; i++ {
		req := chatReq(model, i)
		req.Messages = append(req.Messages, eval.Message{Role: "user", Content: strings.Repeat("context ", 200)})
		if _, err := c.Chat(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Embed(ctx, eval.EmbedRequest{Model: model, Texts: []string{"q1", "q2"}}); err != nil {
		t.Fatal(err)
	}
}

func TestStats(t *testing.T) {
	db := openTemp(t)
	fill(t, db, "m", 3)
	if err := db.PutRun(report.RunInfo{ID: "r1", StartedAt: time.Unix(100, 0)}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutRun(report.RunInfo{ID: "r2", StartedAt: time.Unix(200, 0), Calls: eval.CallCounts{Chat: 4, CacheHits: 3}}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutResult("r2", sampleResult(0)); err != nil {
		t.Fatal(err)
	}
	st, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{KindChat: 3, KindEmbedding: 2, KindRuns: 2, KindResults: 1}
	for kind, n := range want {
		if ks := st.Of(kind); ks.Entries != n || ks.Bytes <= 0 {
			t.Errorf("%s: %+v, want %d entries and some bytes", kind, ks, n)
		}
	}
	if st.Of(KindChat).Bytes < 3*1600 {
		t.Errorf("chat bytes %d do not account for the stored requests", st.Of(KindChat).Bytes)
	}
	if st.FileSize <= 0 || st.Path != db.Path() {
		t.Errorf("file: %+v", st)
	}
	if st.LastRun == nil || st.LastRun.ID != "r2" || st.LastRun.Calls.CacheHits != 3 {
		t.Errorf("last run = %+v", st.LastRun)
	}
}

func TestClearOlderThan(t *testing.T) {
	db := openTemp(t)
	t0 := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	db.now = func() time.Time { return t0 }
	fill(t, db, "old", 4)
	db.now = func() time.Time { return t0.Add(40 * 24 * time.Hour) }
	fill(t, db, "new", 2)
	if err := db.PutRun(report.RunInfo{ID: "r"}); err != nil {
		t.Fatal(err)
	}
	if err := db.PutResult("r", sampleResult(0)); err != nil {
		t.Fatal(err)
	}
	db.now = func() time.Time { return t0.Add(45 * 24 * time.Hour) }

	cases := []struct {
		olderThan     time.Duration
		removed, left int // call-cache entries
	}{
		{60 * 24 * time.Hour, 0, 10},
		{30 * 24 * time.Hour, 6, 4}, // the "old" chats and embeddings
		{0, 4, 0},
	}
	for _, tc := range cases {
		n, err := db.Clear(tc.olderThan)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := db.Stats()
		left := st.Of(KindChat).Entries + st.Of(KindEmbedding).Entries
		if n != tc.removed || left != tc.left {
			t.Errorf("Clear(%s): removed %d, left %d; want %d, %d", tc.olderThan, n, left, tc.removed, tc.left)
		}
		if st.Of(KindRuns).Entries != 1 || st.Of(KindResults).Entries != 1 {
			t.Errorf("Clear(%s) touched the run store: %+v", tc.olderThan, st.Kinds)
		}
	}
	if _, err := db.Clear(-time.Hour); err == nil {
		t.Error("negative --older-than accepted")
	}
	// The cleared cache still works.
	fill(t, db, "again", 1)
}

func TestCompactShrinksAfterClear(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ragscope.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fill(t, db, "m", 300)
	if err := db.PutRun(report.RunInfo{ID: "keep"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Clear(0); err != nil {
		t.Fatal(err)
	}
	// Compacting needs the lock: it fails fast while the database is open.
	if _, _, err := Compact(path, Options{Timeout: 50 * time.Millisecond}); err == nil || !strings.Contains(err.Error(), "in use") {
		t.Errorf("compact of an open database: %v", err)
	}
	db.Close()

	before, after, err := Compact(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if before <= after || after != fi.Size() || after > before/4 {
		t.Errorf("compact: before %d, after %d (file %d): want a much smaller file", before, after, fi.Size())
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("compacted file mode %v, want 0600", fi.Mode().Perm())
	}
	if _, err := os.Stat(path + ".compact-tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatalf("open after compact: %v", err)
	}
	defer db.Close()
	if _, _, err := db.Run("keep"); err != nil {
		t.Errorf("run lost by compaction: %v", err)
	}
	fill(t, db, "m", 1)

	if _, _, err := Compact(filepath.Join(t.TempDir(), "none.db"), Options{}); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Errorf("compact of a missing file: %v", err)
	}
}

// A process that waited for the lock while Compact replaced the file would
// hold the old, unlinked file; Open detects that through stillAtPath.
func TestStillAtPathNoticesReplacement(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ragscope.db")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if same, err := stillAtPath(f, path); err != nil || !same {
		t.Fatalf("before replacement: %v, %v; want true", same, err)
	}
	if err := os.WriteFile(path+".new", []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
	if same, err := stillAtPath(f, path); err != nil || same {
		t.Errorf("after replacement: %v, %v; want false", same, err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if same, err := stillAtPath(f, path); err != nil || same {
		t.Errorf("after removal: %v, %v; want false", same, err)
	}
}
