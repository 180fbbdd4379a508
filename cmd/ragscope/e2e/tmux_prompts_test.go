package e2e

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval/fakejudge"
)

// judgeTasks are the request kinds the fake judge counts.
var judgeTasks = []string{"faithfulness_statements", "faithfulness_verdicts", "answer_relevancy_question",
	"context_precision_verdict", "context_recall_classifications", "embeddings"}

// lenientJudge supports the first statement only when the verdict prompt
// asks for leniency, so an edit of that one template moves faithfulness
// from 0.5 to 1 and nothing else.
func lenientJudge(r *fakejudge.Request) fakejudge.Reply {
	if r.Task != "faithfulness_verdicts" {
		return fakejudge.Generic(r)
	}
	v, reason := 0, "not stated in the context"
	if strings.Contains(r.Prompt(), "LENIENT") {
		v, reason = 1, "a fair paraphrase of the context"
	}
	return fakejudge.Reply{Choices: []string{fakejudge.JSON(map[string]any{"statements": []map[string]any{
		{"statement": "first statement", "reason": reason, "verdict": v},
		{"statement": "second statement", "reason": "stated in the context", "verdict": 1},
	}})}}
}

func taskCounts(srv *fakejudge.Server) map[string]int {
	c := map[string]int{"": srv.Count("")}
	for _, task := range judgeTasks {
		c[task] = srv.Count(task)
	}
	return c
}

// promptScenario is what both terminal tests share: a judge, a dataset,
// exported templates and a scripted editor.
type promptScenario struct {
	t         *testing.T
	srv       *fakejudge.Server
	data, db  string
	pdir      string
	verdicts  string // the English verdict template, the one edited
	original  []byte // its exported text
	editor    string
	editorLog string
	mode      string // the file telling the editor what the next edit does
}

// The scripted editor's edits. Each starts from the template as exported,
// the way a user fixing a mistake goes back to what worked.
const (
	editLenient = "lenient" // prepend "LENIENT: accept paraphrases."
	editField   = "field"   // prepend it and a reference to an unknown field on line 2
	editSyntax  = "syntax"  // prepend it and an unfinished action on line 2
)

func newPromptScenario(t *testing.T) *promptScenario {
	t.Helper()
	srv := fakejudge.New(lenientJudge)
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	sc := &promptScenario{
		t: t, srv: srv, data: smallDataset(t, 4), db: filepath.Join(dir, "r.db"), pdir: filepath.Join(dir, "prompts"),
		editor: filepath.Join(dir, "scripted-editor"), editorLog: filepath.Join(dir, "editor.log"),
		mode: filepath.Join(dir, "editor.mode"),
	}
	sc.verdicts = filepath.Join(sc.pdir, "faithfulness_verdicts.en.tmpl")
	if r := runBin(t, cleanEnv(t), "prompts", "export", sc.pdir); r.code != exitOK {
		t.Fatalf("prompts export: exit %d\n%s", r.code, r.stderr)
	}
	var err error
	if sc.original, err = os.ReadFile(sc.verdicts); err != nil {
		t.Fatalf("prompts export wrote no English verdict template: %v", err)
	}
	// The script logs how it was called, so the test sees the template's
	// path arrive as one argument whatever shell wrapping the TUI uses. Its
	// scratch files stay out of the prompt directory, which refuses files
	// that are not templates.
	script := fmt.Sprintf(`#!/bin/sh
d=%q
printf '%%s\n' "$#" "$1" >>"$d/editor.log"
[ -f "$d/original" ] || cp "$1" "$d/original"
lenient='LENIENT: accept paraphrases.'
case $(cat "$d/editor.mode") in
%s) prefix=$lenient ;;
%s) prefix="$lenient
{{.Nope}}" ;;
%s) prefix="$lenient
{{if}}" ;;
*) echo "unknown mode" >&2; exit 2 ;;
esac
{ printf '%%s\n' "$prefix"; cat "$d/original"; } >"$d/next" && mv "$d/next" "$1"
`, dir, editLenient, editField, editSyntax)
	if err := os.WriteFile(sc.editor, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return sc
}

// setMode chooses what the editor does next.
func (sc *promptScenario) setMode(mode string) {
	sc.t.Helper()
	if err := os.WriteFile(sc.mode, []byte(mode+"\n"), 0o644); err != nil {
		sc.t.Fatal(err)
	}
}

// env is the pane's environment: the fake judge and the scripted editor,
// and no $VISUAL (cleanEnv sets none), so $EDITOR is the one used.
func (sc *promptScenario) env() []string {
	return []string{"OPENAI_BASE_URL=" + sc.srv.BaseURL(), "OPENAI_API_KEY=k", "EDITOR=" + sc.editor}
}

// editVerdicts opens the prompt list with key (p in the table, P in the
// detail page), selects the English verdict template, runs the scripted
// editor on it with e, and returns the screen once the TUI has validated
// the result.
func (sc *promptScenario) editVerdicts(p *tmuxPane, key, mode string) string {
	t := p.t
	t.Helper()
	sc.setMode(mode)
	calls := sc.editorCalls()
	p.keys(key)
	p.waitForText("judge prompts", "context_recall_classifications")
	// The selected template is spelled out under the list; j moves down
	// until it is the one to edit.
	for i := 0; !strings.Contains(p.waitForText("file: "), "file: "+sc.verdicts); i++ {
		if i == 10 {
			t.Fatalf("j never selected %s:\n%s", sc.verdicts, p.screen())
		}
		before := p.screen()
		p.keys("j")
		p.waitFor("the selection to move", func(s string) bool { return s != before })
	}
	p.keys("e")
	s := p.waitFor("the edit of faithfulness_verdicts.en to be validated", func(s string) bool {
		return strings.Contains(s, "prompt faithfulness_verdicts.en updated") || strings.Contains(s, "prompt faithfulness_verdicts.en not updated")
	})
	if got := sc.editorCalls(); len(got) != len(calls)+1 || got[len(got)-1] != "1 "+sc.verdicts {
		t.Fatalf("the editor was called as %q, want once more with the template's path as its one argument %q", got, sc.verdicts)
	}
	return s
}

// editorCalls are the editor's invocations: "argc path" each.
func (sc *promptScenario) editorCalls() []string {
	b, err := os.ReadFile(sc.editorLog)
	if os.IsNotExist(err) {
		return nil
	} else if err != nil {
		sc.t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	var calls []string
	for i := 0; i+1 < len(lines); i += 2 {
		calls = append(calls, lines[i]+" "+lines[i+1])
	}
	return calls
}

// assertSent checks that the judge received exactly verdicts requests
// since before, all of them faithfulness verdicts.
func (sc *promptScenario) assertSent(step string, before map[string]int, verdicts int) {
	sc.t.Helper()
	after := taskCounts(sc.srv)
	for _, task := range append([]string{""}, judgeTasks...) {
		want := 0
		if task == "" || task == "faithfulness_verdicts" {
			want = verdicts
		}
		if got := after[task] - before[task]; got != want {
			name := task
			if name == "" {
				name = "all tasks"
			}
			sc.t.Errorf("%s sent %d %s requests, want %d", step, got, name, want)
		}
	}
	if sc.t.Failed() {
		sc.t.FailNow()
	}
}

// rerunOpenSample presses r in the detail page of sample 0 after the
// lenient edit, and checks the cost, the calls and the before -> after.
func (sc *promptScenario) rerunOpenSample(p *tmuxPane) string {
	t := p.t
	t.Helper()
	before := taskCounts(sc.srv)
	p.keys("r")
	s := p.waitForText("Re-run sample 0 (all metrics)?", "[y/n]")
	if !strings.Contains(strings.Join(strings.Fields(s), " "), "1 judge call will be sent") {
		t.Fatalf("re-running sample 0 after editing its verdict prompt should cost 1 call:\n%s", s)
	}
	p.keys("y")
	s = p.waitForText("finished: 1 of 1 samples re-scored, 1 calls sent, 6 from the cache")
	sc.assertSent("re-running sample 0", before, 1)
	for _, want := range []string{
		"id s0",
		"1 faithfulness  0.500 → 1.000  (+0.500)",
		"0 → 1 first statement",
		"before: not stated in the context",
		"after:  a fair paraphrase of the context",
		"2 answer_relevancy  0.806 → 0.806  (unchanged)",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("after the re-run the detail page lacks %q:\n%s", want, s)
		}
	}
	return s
}

func TestPromptWorkflowInTmux(t *testing.T) {
	sc := newPromptScenario(t)
	p := startTmuxEnv(t, 120, 40, sc.env(), binary, "run", "--db", sc.db, "--prompts", sc.pdir, sc.data)
	s := p.waitForText("finished in", "4/4")
	if ds := deltaCells(t, s, "F"); len(ds) != 4 || ds[0] != "0.500" {
		t.Fatalf("every sample should score 0.500 faithfulness before the edit:\n%s", s)
	}
	p.keys("Enter")
	p.waitForText("id s0", "1 faithfulness  0.500")

	// A broken template is refused with its file and line, and the prompt
	// in use stays the old one: re-running the sample costs nothing.
	for _, tc := range []struct{ mode, want string }{
		{editField, sc.verdicts + ":2:2: unknown field .Nope"},
		{editSyntax, sc.verdicts + ":2: missing value for if"},
	} {
		s = sc.editVerdicts(p, "P", tc.mode)
		if !strings.Contains(s, "prompt faithfulness_verdicts.en not updated, the previous prompts stay in use") ||
			!strings.Contains(s, tc.want) {
			t.Fatalf("%s edit: the prompt screen should show the error %q:\n%s", tc.mode, tc.want, s)
		}
		p.keys("Escape")
		p.waitForText("id s0")
		p.keys("r")
		s = p.waitForText("Re-run sample 0 (all metrics)?", "[y/n]")
		if !strings.Contains(strings.Join(strings.Fields(s), " "), "No judge call will be sent: the cache answers all 7") {
			t.Fatalf("after a refused %s edit the old prompt must stay in use, so the re-run is free:\n%s", tc.mode, s)
		}
		p.keys("n")
		p.waitForText("re-run cancelled; nothing was sent")
	}

	first := taskCounts(sc.srv)
	s = sc.editVerdicts(p, "P", editLenient)
	if !strings.Contains(s, "prompt faithfulness_verdicts.en updated (sha256") {
		t.Fatalf("the lenient edit was not taken:\n%s", s)
	}
	if b, _ := os.ReadFile(sc.verdicts); string(b) != "LENIENT: accept paraphrases.\n"+string(sc.original) {
		t.Fatalf("the editor did not leave the lenient template:\n%s", b)
	}
	sc.assertSent("editing and validating the template", first, 0)
	p.keys("Escape")
	p.waitForText("id s0")
	s = sc.rerunOpenSample(p)
	child := rerunID(t, s)

	p.keys("Escape")
	s = p.waitFor("the table", func(s string) bool { return columnTitles(s) != "" })
	if ds := deltaCells(t, s, "ΔF"); ds[0] != "+0.500" || ds[1] != "" || ds[2] != "" || ds[3] != "" {
		t.Fatalf("the ΔF column should show +0.500 on sample 0 and nothing on the others, got %v:\n%s", ds, s)
	}
	if !strings.Contains(s, "1 compared, 1 changed  mean Δ F +0.500 AR . CP . CR .") {
		t.Fatalf("the comparison line should show the change of the means:\n%s", s)
	}

	// The samples the edit has not reached yet: those still below 1.
	p.keys("/")
	p.waitForText("/ f<0.5 ar<0.7")
	p.typeText("f<1")
	p.keys("Enter")
	s = p.waitForText("filter: f<1", "3 of 4 samples")
	second := taskCounts(sc.srv)
	p.keys("R")
	s = p.waitForText("Re-run 3 samples (all metrics)?", "[y/n]")
	// The question, with its cost, may wrap.
	if q := strings.Join(strings.Fields(s), " "); !strings.Contains(q, "3 judge calls will be sent") || !strings.Contains(q, "18 answered from the cache") {
		t.Fatalf("re-running the filter should cost 3 calls, 18 from the cache:\n%s", s)
	}
	p.keys("y")
	s = p.waitForText("finished: 3 of 3 samples re-scored, 3 calls sent, 18 from the cache")
	sc.assertSent("re-running the filter", second, 3)
	grandchild := rerunID(t, s)
	// Every sample now scores 1: the filter shows none; clearing it shows
	// the change on the three re-run.
	p.keys("Escape")
	s = p.waitFor("the table without the filter", func(s string) bool {
		return !strings.Contains(s, "filter: ") && len(deltaCells(t, s, "ΔF")) == 4
	})
	if ds := deltaCells(t, s, "ΔF"); ds[0] != "" || ds[1] != "+0.500" || ds[2] != "+0.500" || ds[3] != "+0.500" {
		t.Fatalf("after re-running the filter ΔF should be +0.500 on samples 1-3, got %v:\n%s", ds, s)
	}
	if ds := deltaCells(t, s, "F"); ds[0] != "1.000" || ds[1] != "1.000" || ds[2] != "1.000" || ds[3] != "1.000" {
		t.Fatalf("every sample should now score 1.000, got %v:\n%s", ds, s)
	}

	if code := p.quit(); code != exitOK {
		t.Fatalf("ragscope exited with %d after q, want %d:\n%s", code, exitOK, p.screen())
	}
	// The exit summary is of the run the analyst last looked at: the last
	// re-run, not the first run of the chain.
	if s := p.screen(); !strings.Contains(s, "after re-runs, the last run is "+grandchild) || !strings.Contains(s, "reopen it with: ragscope open "+grandchild) {
		t.Fatalf("the exit summary should name the last re-run %s:\n%s", grandchild, s)
	}

	env := cleanEnv(t)
	runs := runBin(t, env, "runs", "--db", sc.db)
	if runs.code != exitOK {
		t.Fatalf("runs: exit %d\n%s", runs.code, runs.stderr)
	}
	parents := runParents(t, runs.stdout)
	var root string
	for id, parent := range parents {
		if parent == "" {
			root = id
		}
	}
	if len(parents) != 3 || root == "" || parents[child] != root || parents[grandchild] != child {
		t.Fatalf("want 3 runs, %s the child of the first and %s its child:\n%s", child, grandchild, runs.stdout)
	}
	d := runBin(t, env, "diff", root, grandchild, "--db", sc.db)
	if d.code != exitOK {
		t.Fatalf("diff: exit %d\n%s", d.code, d.stderr)
	}
	if got := diffMeans(d.stdout)["faithfulness"]; got != "0.500 1.000 +0.500 4 0" {
		t.Fatalf("diff: faithfulness mean A, mean B, delta, up, down = %q, want 0.500 1.000 +0.500 4 0:\n%s", got, d.stdout)
	}
	for _, mt := range []string{"answer_relevancy", "context_precision", "context_recall"} {
		if got := diffMeans(d.stdout)[mt]; !strings.HasSuffix(got, " +0.000 0 0") {
			t.Fatalf("diff: %s should not change, its row reads %q:\n%s", mt, got, d.stdout)
		}
	}
	if !strings.Contains(d.stdout, "4 samples changed") {
		t.Fatalf("diff does not say 4 samples changed:\n%s", d.stdout)
	}
}

var rerunDone = regexp.MustCompile(`re-run (\S+) finished:`)

// rerunID is the run a finished re-run created, from its status line.
func rerunID(t *testing.T, screen string) string {
	t.Helper()
	m := rerunDone.FindStringSubmatch(screen)
	if m == nil {
		t.Fatalf("no finished re-run on screen:\n%s", screen)
	}
	return m[1]
}

// runParents maps each run `ragscope runs` lists to its parent ("" for
// none).
func runParents(t *testing.T, out string) map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || !strings.HasSuffix(lines[0], "PARENT") {
		t.Fatalf("runs output has no table:\n%s", out)
	}
	parentAt := strings.Index(lines[0], "PARENT")
	m := map[string]string{}
	for _, l := range lines[1:] {
		parent := ""
		if len(l) > parentAt {
			parent = strings.TrimSpace(l[parentAt:])
		}
		m[strings.Fields(l)[0]] = parent
	}
	return m
}

// diffMeans maps each metric of `ragscope diff`'s table to its mean A,
// mean B, delta, up and down cells.
func diffMeans(out string) map[string]string {
	m := map[string]string{}
	in := false
	for _, l := range strings.Split(out, "\n") {
		switch f := strings.Fields(l); {
		case len(f) > 0 && f[0] == "metric":
			in = true
		case in && len(f) == 7:
			m[f[0]] = strings.Join(f[1:6], " ")
		case in:
			return m
		}
	}
	return m
}

// deltaCells reads one column of the table by sample index: the cell
// under the title, right-aligned like the titles, "" when blank. Offsets
// count runes; the screen's glyphs (✓, Δ) are one cell each.
func deltaCells(t *testing.T, screen, title string) map[int]string {
	t.Helper()
	titles := columnTitles(screen)
	if titles == "" {
		return nil
	}
	tr := []rune(titles)
	end := -1
	for i := 0; i+len([]rune(title)) <= len(tr); i++ {
		j := i + len([]rune(title))
		if string(tr[i:j]) == title && (i == 0 || tr[i-1] == ' ') && (j == len(tr) || tr[j] == ' ') {
			end = j
			break
		}
	}
	if end < 0 {
		t.Fatalf("no column %q in %q", title, titles)
	}
	lines := strings.Split(screen, "\n")
	cells := map[int]string{}
	for _, l := range lines[slices.Index(lines, titles)+1:] {
		m := rowIndex.FindStringSubmatch(l)
		if m == nil {
			break
		}
		i, _ := strconv.Atoi(m[1])
		r := []rune(l)
		start := min(end, len(r))
		for start > 0 && r[start-1] != ' ' {
			start--
		}
		cells[i] = strings.TrimSpace(string(r[start:min(end, len(r))]))
	}
	return cells
}

// The same workflow over `ssh -t` to this machine, inside tmux: the editor
// hand-off must take and give back a terminal that sshd allocated.
func TestPromptWorkflowOverSSHInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not on PATH: install tmux to run the terminal end-to-end tests")
	}
	ssh, logins := startSSHD(t)
	before := logins()
	needBinary(t)
	sc := newPromptScenario(t)
	remote := []string{"cd", shellQuote(repoFile(".")), "&&", "exec", "env", "-u", "VISUAL",
		"HOME=" + shellQuote(t.TempDir()), "XDG_CACHE_HOME=" + shellQuote(t.TempDir())}
	for _, kv := range sc.env() {
		k, v, _ := strings.Cut(kv, "=")
		remote = append(remote, k+"="+shellQuote(v))
	}
	for _, a := range []string{binary, "run", "--db", sc.db, "--prompts", sc.pdir, sc.data} {
		remote = append(remote, shellQuote(a))
	}
	p := startTmuxEnv(t, 120, 40, nil, append(ssh, "-t", strings.Join(remote, " "))...)
	p.waitForText("finished in", "4/4")
	p.keys("Enter")
	p.waitForText("id s0", "1 faithfulness  0.500")
	if s := sc.editVerdicts(p, "P", editLenient); !strings.Contains(s, "prompt faithfulness_verdicts.en updated (sha256") {
		t.Fatalf("the lenient edit was not taken over ssh:\n%s", s)
	}
	p.keys("Escape")
	p.waitForText("id s0")
	sc.rerunOpenSample(p)
	p.keys("Escape")
	s := p.waitFor("the table", func(s string) bool { return columnTitles(s) != "" })
	if ds := deltaCells(t, s, "ΔF"); ds[0] != "+0.500" || ds[1] != "" {
		t.Fatalf("the ΔF column should show +0.500 on sample 0 only, got %v:\n%s", ds, s)
	}
	if code := p.quit(); code != exitOK {
		t.Fatalf("ssh -t ragscope exited with %d after q, want %d:\n%s", code, exitOK, p.screen())
	}
	if s := p.screen(); !strings.Contains(s, "stored; reopen it with: ragscope open") {
		t.Fatalf("after exit the terminal should show the run summary:\n%s", s)
	}
	if n := logins() - before; n != 1 {
		t.Fatalf("sshd accepted %d logins during the test, want the 1 that ran ragscope", n)
	}
}

// startSSHD runs a private sshd on a free loopback port that admits one
// key made for the test, and returns the ssh command line that logs in
// with it (the remote command goes after it), and a count of the logins
// sshd accepted so far. It skips the test when
// OpenSSH is not installed or the test cannot act as root, as sshd must.
func startSSHD(t *testing.T) (args []string, logins func() int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("the ssh end-to-end test runs sshd and logs in as root; run the tests as root to include it")
	}
	sshd, err := exec.LookPath("sshd")
	if err != nil {
		if _, err := os.Stat("/usr/sbin/sshd"); err != nil {
			t.Skip("sshd is not installed (apt-get install openssh-server); the ssh end-to-end test needs it")
		}
		sshd = "/usr/sbin/sshd"
	}
	for _, tool := range []string{"ssh", "ssh-keygen"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (apt-get install openssh-client); the ssh end-to-end test needs it", tool)
		}
	}
	// sshd refuses to start without its privilege separation directory.
	if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
		t.Skipf("sshd needs /run/sshd: %v", err)
	}
	dir := t.TempDir()
	hostKey, userKey := filepath.Join(dir, "host_key"), filepath.Join(dir, "user_key")
	for _, k := range []string{hostKey, userKey} {
		if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", k).CombinedOutput(); err != nil {
			t.Fatalf("ssh-keygen: %v\n%s", err, out)
		}
	}
	pub, err := os.ReadFile(userKey + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	authorized := filepath.Join(dir, "authorized_keys")
	if err := os.WriteFile(authorized, pub, 0o600); err != nil {
		t.Fatal(err)
	}
	// A port free a moment ago; should another process take it first, sshd
	// fails to bind and the log below says so.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	config := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(config, []byte(fmt.Sprintf(`Port %d
ListenAddress 127.0.0.1
HostKey %s
PidFile %s
AuthorizedKeysFile %s
PermitRootLogin yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
`, port, hostKey, filepath.Join(dir, "sshd.pid"), authorized)), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "sshd.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := exec.Command(sshd, "-D", "-e", "-f", config)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting sshd: %v", err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	args = []string{"ssh", "-F", "/dev/null", "-p", strconv.Itoa(port), "-i", userKey, "-o", "IdentitiesOnly=yes",
		"-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
		"-o", "LogLevel=ERROR", "root@127.0.0.1"}
	// Ready when a login runs a command; until sshd listens, ssh fails.
	deadline := time.Now().Add(screenDeadline)
	for {
		login := exec.Command(args[0], append(args[1:], "echo", "ragscope-ssh-ok")...)
		login.Env = cleanEnv(t)
		out, err := login.CombinedOutput()
		if err == nil && strings.Contains(string(out), "ragscope-ssh-ok") {
			return args, func() int {
				b, _ := os.ReadFile(logPath)
				return strings.Count(string(b), "Accepted publickey for root")
			}
		}
		select {
		case <-exited:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("sshd exited: %s", b)
		default:
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("could not log in over ssh within %s: %v\n%s\nsshd log:\n%s", screenDeadline, err, out, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// shellQuote quotes s for the remote shell that runs ssh's command.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
