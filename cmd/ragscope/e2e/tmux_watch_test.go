package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// watch in one pane, records appended by the test (the service), rows
// appear; open latest in a second pane shows the same run live and grows
// with it.
func TestTmuxWatchAndOpenLatest(t *testing.T) {
	dir := t.TempDir()
	log, db := filepath.Join(dir, "app.jsonl"), filepath.Join(dir, "w.db")
	appendRecords := func(from, to int) { appendLog(t, log, "tmuxwatch", from, to) }
	appendRecords(0, 3)
	watch := startTmux(t, 160, 20, "watch", "--headless", "--offline", "--progress", "100ms", "--poll", "50ms", "--db", db, log)
	watch.waitFor("3 records evaluated", func(s string) bool { return strings.Contains(s, "3 read, 3 evaluated") })

	open := startTmux(t, 160, 40, "open", "latest", "--db", db)
	// The follow screen, the lag being the watcher's to show.
	screen := open.waitForText("tmuxwatch question 2?", "live run", "(ragscope watch)", "follow: lag and alerts are shown by the watcher")
	runID := regexp.MustCompile(`live run (\d{8}-\d{6}-[0-9a-f]{4}), evaluated by pid (\d+)`).FindStringSubmatch(screen)
	if runID == nil {
		t.Fatalf("no live run id on the screen:\n%s", screen)
	}
	appendRecords(3, 5)
	watch.waitFor("5 records evaluated", func(s string) bool {
		return strings.Contains(s, "5 read, 5 evaluated") && strings.Contains(s, runID[1])
	})
	open.waitForText("tmuxwatch question 3?", "tmuxwatch question 4?")
	if code := open.quit(); code != 0 {
		t.Fatalf("open exited %d", code)
	}
	// SIGTERM (as systemd stops it): a clean stop is exit 0. (C-c in the
	// pane would also interrupt the wrapper shell that records the status.)
	pid, _ := strconv.Atoi(runID[2])
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := watch.waitExit(nil); code != 0 {
		t.Fatalf("watch exited %d after SIGTERM:\n%s", code, watch.screen())
	}
	watch.waitForText("stopped; run " + runID[1] + ": 5 read, 5 evaluated")
}

// watch without --headless is the follow screen: the rows of the log's run
// arrive at the top, the lag line says it is caught up, and q stops the
// watcher cleanly (exit 0, the run stamped finished).
func TestTmuxWatchFollowScreen(t *testing.T) {
	dir := t.TempDir()
	log, db := filepath.Join(dir, "app.jsonl"), filepath.Join(dir, "w.db")
	appendRecords := func(from, to int) { appendLog(t, log, "followscreen", from, to) }
	appendRecords(0, 2)
	w := startTmux(t, 120, 30, "watch", "--offline", "--poll", "50ms", "--db", db, log)
	w.waitForText("followscreen question 1?", "watching: results go to run", "follow: caught up")
	appendRecords(2, 4)
	screen := w.waitForText("followscreen question 3?")
	// Newest first: the last record appended is the first row.
	if i3, i0 := strings.Index(screen, "question 3?"), strings.Index(screen, "question 0?"); i3 < 0 || i0 < 0 || i3 > i0 {
		t.Fatalf("the newest record is not on top:\n%s", screen)
	}
	if code := w.quit(); code != 0 {
		t.Fatalf("watch exited %d:\n%s", code, w.screen())
	}
	r := runBin(t, cleanEnv(t), "runs", "--db", db)
	if r.code != 0 || !strings.Contains(r.stdout, "finished") || !strings.Contains(r.stdout, " 4 ") {
		t.Fatalf("the watched run is not recorded finished with 4 samples (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// appendLog appends records from to to-1 to the log, as the service would:
// "<word> question N?" and its answer and chunk.
func appendLog(t *testing.T, log, word string, from, to int) {
	t.Helper()
	f, err := os.OpenFile(log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i := from; i < to; i++ {
		fmt.Fprintf(f, `{"user_input":"%s question %d?","response":"answer %d.","retrieved_contexts":["chunk %d"]}`+"\n", word, i, i, i)
	}
}
