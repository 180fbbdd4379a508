package e2e

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/fakejudge"
)

// --confirm-over in the interface: it opens on the cost of the run, with
// nothing sent and nothing recorded; n leaves with exit 2 and no run, y
// starts the run, which sends the calls the page showed.
func TestConfirmOverInTmux(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "r.db")
	env := []string{"OPENAI_BASE_URL=" + srv.BaseURL(), "OPENAI_API_KEY=k"}
	open := func() (*tmuxPane, string) {
		p := startTmuxEnv(t, 100, 30, env, binary, "run", "--db", db, "--confirm-over", "0.000001", "testdata/demo.jsonl")
		s := p.waitForText("The run has not started. Start it?", "over --confirm-over $1e-06", "total")
		for _, want := range []string{"faithfulness", "answer_relevancy", "context_precision", "context_recall", "y start the run"} {
			if !strings.Contains(s, want) {
				t.Fatalf("the cost page lacks %q:\n%s", want, s)
			}
		}
		if n := srv.Count(""); n != 0 {
			t.Fatalf("the judge got %d requests before the answer", n)
		}
		return p, s
	}
	runsListed := func() string {
		r := runBin(t, cleanEnv(t), "runs", "--db", db)
		if r.code != exitOK {
			t.Fatalf("runs: exit %d\n%s", r.code, r.stderr)
		}
		return r.stdout
	}

	p, _ := open()
	p.keys("n")
	if code := p.exitStatus(); code != exitUsage {
		t.Fatalf("n: exit %d, want %d\n%s", code, exitUsage, p.screen())
	}
	// The reason's first line may be gone with the alternate screen; its
	// end is left on the pane.
	if s := p.screen(); !strings.Contains(s, "the run did not start") {
		t.Errorf("after n the terminal does not say the run did not start:\n%s", s)
	}
	if n := srv.Count(""); n != 0 {
		t.Fatalf("n sent %d requests", n)
	}
	if out := runsListed(); strings.Contains(out, "demo.jsonl") {
		t.Fatalf("n left a run:\n%s", out)
	}

	p, s := open()
	chat, embed := totalCalls(t, s)
	p.keys("y")
	p.waitForText("finished in", "14/14")
	if code := p.quit(); code != exitOK {
		t.Fatalf("quit after the run: exit %d", code)
	}
	if got, gotEmbed := srv.Count("")-srv.Count("embeddings"), srv.Count("embeddings"); got != chat || gotEmbed != embed {
		t.Errorf("the page estimated %d chat and %d embedding calls, the run sent %d and %d", chat, embed, got, gotEmbed)
	}
	if out := runsListed(); strings.Count(out, "demo.jsonl") != 1 {
		t.Fatalf("after y, want the one run listed:\n%s", out)
	}
}

// totalCalls reads the chat and embedding calls of the cost page's total.
func totalCalls(t *testing.T, screen string) (chat, embed int) {
	t.Helper()
	var f []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "  total ") {
			f = strings.Fields(l)
			break
		}
	}
	if len(f) < 3 {
		t.Fatalf("no total line:\n%s", screen)
	}
	chat, err1 := strconv.Atoi(f[1])
	embed, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		t.Fatalf("total line %q", f)
	}
	return chat, embed
}
