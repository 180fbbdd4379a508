package e2e

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/prompts"
)

// convReport is the part of the JSON report a conversation run adds.
type convReport struct {
	Conversations []struct {
		ID      string `json:"id"`
		Turns   int    `json:"turns"`
		Metrics map[string]struct {
			Mean             *float64 `json:"mean"`
			Min              *float64 `json:"min"`
			FirstFailingTurn *int     `json:"first_failing_turn"`
		} `json:"metrics"`
	} `json:"conversations"`
	Samples []struct {
		ConversationID     string  `json:"conversation_id"`
		Turn               int     `json:"turn"`
		StandaloneQuestion *string `json:"standalone_question"`
		Faithfulness       *struct {
			Statements []struct {
				Statement   string `json:"statement"`
				Verdict     int    `json:"verdict"`
				Support     string `json:"support"`
				SupportTurn int    `json:"support_turn"`
				Contradicts int    `json:"contradicts_turn"`
			} `json:"statements"`
		} `json:"faithfulness"`
	} `json:"samples"`
}

func readConvReport(t *testing.T, path string) convReport {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var rep convReport
	if err := json.Unmarshal(body, &rep); err != nil {
		t.Fatalf("report: %v\n%s", err, body)
	}
	return rep
}

// firstFailing is conversation id's first failing turn of faithfulness, 0
// for none.
func (r convReport) firstFailing(t *testing.T, id string) int {
	t.Helper()
	for _, c := range r.Conversations {
		if c.ID == id {
			if f := c.Metrics["faithfulness"].FirstFailingTurn; f != nil {
				return *f
			}
			return 0
		}
	}
	t.Fatalf("no conversation %q in %+v", id, r.Conversations)
	return 0
}

// The demo conversations (a flat log, zh and en interleaved) through the
// binary with the fake judge: every turn a sample placed by conversation
// and turn with its standalone question, the conversations aggregated, the
// verdict classes with their turns, a contradiction flagged, and
// --history-support moving the first failing turn.
func TestConversationsWithLLMJudge(t *testing.T) {
	srv := fakejudge.New(fakejudge.Conversational)
	defer srv.Close()
	dir := t.TempDir()
	db, out := filepath.Join(dir, "r.db"), filepath.Join(dir, "report.json")
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	data := repoFile("testdata/conversations.jsonl")

	r := runBin(t, env, "run", "--headless", "--db", db, "--out", out, "--metrics", "faithfulness,answer_relevancy", data)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := readConvReport(t, out)
	if len(rep.Samples) != 7 || len(rep.Conversations) != 2 || rep.Conversations[0].ID != "tax-zh" || rep.Conversations[0].Turns != 4 || rep.Conversations[1].Turns != 3 {
		t.Fatalf("%d samples, conversations %+v", len(rep.Samples), rep.Conversations)
	}
	if f := rep.firstFailing(t, "tax-zh"); f != 4 {
		t.Errorf("tax-zh fails first at turn %d, want 4 (the contradiction)", f)
	}
	if f := rep.firstFailing(t, "leave-en"); f != 0 {
		t.Errorf("leave-en fails first at turn %d, want none", f)
	}
	var zh2, zh3, zh4 = -1, -1, -1
	for i, s := range rep.Samples {
		if s.StandaloneQuestion == nil || s.ConversationID == "" || s.Turn == 0 {
			t.Errorf("sample %d: %q turn %d standalone %v", i, s.ConversationID, s.Turn, s.StandaloneQuestion)
			continue
		}
		if s.ConversationID == "tax-zh" {
			switch s.Turn {
			case 2:
				zh2 = i
			case 3:
				zh3 = i
			case 4:
				zh4 = i
			}
		}
	}
	if zh2 < 0 || zh3 < 0 || zh4 < 0 {
		t.Fatalf("tax-zh turns missing: %+v", rep.Samples)
	}
	if q := *rep.Samples[zh2].StandaloneQuestion; q != "那纳税人识别号会变吗？（前文：我们公司下个月转为一般纳税人。）" {
		t.Errorf("the standalone question of the follow-up: %q", q)
	}
	// The repeated fact is backed by turn 1's retrieval and counts; what
	// the user said is its own class and does not; the contradiction of
	// turn 1's answer is flagged.
	if st := rep.Samples[zh2].Faithfulness.Statements; len(st) != 2 || st[1].Support != "earlier_chunks" || st[1].SupportTurn != 1 || st[1].Verdict != 1 {
		t.Errorf("turn 2 statements %+v", st)
	}
	if st := rep.Samples[zh3].Faithfulness.Statements; len(st) != 2 || st[1].Support != "user" || st[1].SupportTurn != 1 || st[1].Verdict != 0 {
		t.Errorf("turn 3 statements %+v", st)
	}
	if st := rep.Samples[zh4].Faithfulness.Statements; len(st) != 1 || st[0].Contradicts != 1 {
		t.Errorf("turn 4 statements %+v", st)
	}
	if n := srv.Count(prompts.TaskConversationStandalone); n != 5 {
		t.Errorf("%d standalone rewrites, want one per turn after the first (5)", n)
	}

	// Only the turn's own chunks: the repeated fact no longer counts.
	r = runBin(t, env, "run", "--headless", "--db", db, "--out", out, "--metrics", "faithfulness", "--history-support", "none", data)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if f := readConvReport(t, out).firstFailing(t, "tax-zh"); f != 2 {
		t.Errorf("with --history-support none tax-zh fails first at turn %d, want 2", f)
	}

	// diff compares the conversations: tax-zh's first failing turn moved
	// from 4 to 2.
	var runs []string // newest first
	for _, l := range strings.Split(runIDs(t, env, db), "\n")[1:] {
		if f := strings.Fields(l); len(f) > 0 {
			runs = append(runs, f[0])
		}
	}
	if len(runs) != 2 {
		t.Fatalf("runs %v", runs)
	}
	r = runBin(t, env, "diff", "--db", db, "--format", "json", runs[1], runs[0])
	var d struct {
		Conversations []struct {
			ID      string `json:"id"`
			Metrics map[string]struct {
				Before *int `json:"first_failing_turn_before"`
				After  *int `json:"first_failing_turn_after"`
			} `json:"metrics"`
		} `json:"conversations"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &d); err != nil || r.code != 0 || len(d.Conversations) != 2 || d.Conversations[0].ID != "tax-zh" {
		t.Fatalf("diff --format json (exit %d, %v): %s\n%s", r.code, err, r.stdout, r.stderr)
	}
	if f := d.Conversations[0].Metrics["faithfulness"]; f.Before == nil || *f.Before != 4 || f.After == nil || *f.After != 2 {
		t.Errorf("tax-zh's first failing turn in the diff: %+v", f)
	}
	r = runBin(t, env, "diff", "--db", db, runs[1], runs[0])
	if r.code != 0 || !strings.Contains(r.stdout, "2 conversations:") || !strings.Contains(r.stdout, "4 -> 2") {
		t.Errorf("diff (exit %d):\n%s%s", r.code, r.stdout, r.stderr)
	}

	// The HTML report lists the conversations, tax-zh's first failing
	// turn (2 now) linked to its drill-down.
	r = runBin(t, env, "report", "latest", "--db", db, "--format", "html")
	if r.code != 0 || !strings.Contains(r.stdout, "<h2>Conversations</h2>") || !strings.Contains(r.stdout, `first failing <a href="#s`) || !strings.Contains(r.stdout, `">turn 2</a>`) {
		t.Errorf("HTML report (exit %d): %s", r.code, r.stderr)
	}

	r = runBin(t, env, "report", "latest", "--db", db, "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(rows) != 8 || strings.Join(rows[0][:4], ",") != "index,id,conversation_id,turn" {
		t.Fatalf("CSV report (%v):\n%s%s", err, r.stdout, r.stderr)
	}

	r = runBin(t, env, "run", "--headless", "--db", db, "--history-support", "users", data)
	if r.code != exitUsage || !strings.Contains(r.stderr, "--history-support") {
		t.Errorf("a bad --history-support: exit %d\n%s", r.code, r.stderr)
	}
}

// Offline the standalone question is null (the judge cannot rewrite), and
// the statements are still checked against earlier turns' chunks.
func TestConversationsOffline(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.json")
	r := runBin(t, cleanEnv(t), "run", "--headless", "--offline", "--db", filepath.Join(dir, "r.db"), "--out", out, "--metrics", "faithfulness",
		repoFile("testdata/conversations.jsonl"))
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	rep := readConvReport(t, out)
	earlier := 0
	for _, s := range rep.Samples {
		if (s.Turn == 1) != (s.StandaloneQuestion != nil) {
			t.Errorf("%s turn %d: standalone %v", s.ConversationID, s.Turn, s.StandaloneQuestion)
		}
		for _, st := range s.Faithfulness.Statements {
			if st.Support == "earlier_chunks" {
				earlier++
			}
		}
	}
	if earlier == 0 || len(rep.Conversations) != 2 {
		t.Errorf("offline: %d statements backed by earlier chunks, conversations %+v", earlier, rep.Conversations)
	}
}

// A bad conversation log is refused before any call, naming the record.
func TestConversationBadLog(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "log.jsonl")
	log := `{"conversation_id":"a","turn":1,"question":"q","answer":"a"}` + "\n" + `{"conversation_id":"a","turn":3,"question":"q","answer":"a"}` + "\n"
	if err := os.WriteFile(data, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runBin(t, cleanEnv(t), "run", "--headless", "--offline", "--db", filepath.Join(dir, "r.db"), data)
	if r.code == 0 || !strings.Contains(r.stderr, `log.jsonl:2: field "turn": turn 3 of conversation "a" follows turn 1`) {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
}

// --fail-under-conversation through the binary: the demo's tax-zh has a
// turn below the threshold (its contradiction, turn 4), so the run exits 4
// naming it and that turn, in the summary and the JUnit file; leave-en
// passes. A dataset without conversations cannot be gated on them (exit 4
// saying so), and a threshold the conversations meet passes.
func TestConversationGate(t *testing.T) {
	srv := fakejudge.New(fakejudge.Conversational)
	defer srv.Close()
	dir := t.TempDir()
	db, junit := filepath.Join(dir, "r.db"), filepath.Join(dir, "junit.xml")
	env := cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	data := repoFile("testdata/conversations.jsonl")

	r := runBin(t, env, "run", "--headless", "--db", db, "--out", filepath.Join(dir, "report.json"), "--metrics", "faithfulness",
		"--fail-under-conversation", "f=0.5", "--junit", junit, data)
	if r.code != exitGate || !strings.Contains(r.stderr, "breached: faithfulness per conversation >= 0.5: 1 of 2 conversations breach: conversation tax-zh first fails at turn 4") || strings.Contains(r.stderr, "conversation leave-en") {
		t.Fatalf("exit %d, want %d naming tax-zh and its turn 4\n%s", r.code, exitGate, r.stderr)
	}
	body, err := os.ReadFile(junit)
	if err != nil || !strings.Contains(string(body), `classname="ragscope.gate.conversation.faithfulness"`) || !strings.Contains(string(body), "conversation tax-zh first fails at turn 4") {
		t.Errorf("JUnit (%v):\n%s", err, body)
	}

	r = runBin(t, env, "run", "--headless", "--db", db, "--metrics", "faithfulness", "--fail-under-conversation", "f=0", data)
	if r.code != 0 || !strings.Contains(r.stderr, "passed: faithfulness: every turn of the 2 conversations >= 0") {
		t.Errorf("a threshold every turn meets: exit %d\n%s", r.code, r.stderr)
	}

	r = runBin(t, cleanEnv(t), "run", "--headless", "--offline", "--db", db, "--metrics", "faithfulness", "--fail-under-conversation", "f=0.5", repoFile("testdata/demo.jsonl"))
	if r.code != exitGate || !strings.Contains(r.stderr, "cannot gate: faithfulness per conversation: the run has no conversations") {
		t.Errorf("no conversations: exit %d, want %d\n%s", r.code, exitGate, r.stderr)
	}
}
