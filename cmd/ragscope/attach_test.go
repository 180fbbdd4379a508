package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval/fakejudge"
)

// A server killed while it evaluates a detached run leaves nothing beside
// the run's --out and --junit: their files are created when the run ends.
func TestKilledServeLeavesNoTemporaryReport(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 200 * time.Millisecond })
	defer srv.Close()
	data := smallDataset(t, 20)
	dir := t.TempDir()
	db, out, junit := filepath.Join(dir, "r.db"), filepath.Join(dir, "report.json"), filepath.Join(dir, "junit.xml")
	env := cleanEnv(t, "OPENAI_BASE_URL="+srv.BaseURL())
	server, _ := serveAndDetach(t, env, "k", db, "--concurrency", "2", "--out", out, "--junit", junit, data)
	for deadline := time.Now().Add(20 * time.Second); srv.Count("") < 2; {
		if time.Now().After(deadline) {
			t.Fatalf("the detached run sent no call:\n%s", server.stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if err := server.cmd.Process.Signal(os.Kill); err != nil {
		t.Fatal(err)
	}
	server.cmd.Wait()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") || e.Name() == "report.json" || e.Name() == "junit.xml" {
			t.Errorf("the killed server left %s beside --out", e.Name())
		}
	}
}
