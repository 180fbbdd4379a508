package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

// These tests drive the real binary in a real terminal emulator (tmux):
// what they see is what a user sees, glyph widths and alt screen included.
// They poll the screen against a deadline instead of sleeping, because a
// loaded CI machine can take seconds for what takes milliseconds here.

// screenDeadline is how long any one expected screen may take to appear.
const screenDeadline = 20 * time.Second

var tmuxSockets atomic.Int64

// tmuxPane is one private tmux server with one session running ragscope.
type tmuxPane struct {
	t        *testing.T
	socket   string
	env      []string
	exitFile string
}

// startTmux runs `ragscope args...` in a fresh tmux server of the given
// size, from the repository root, with no judge configured (the offline
// judge) and a private cache directory. A shell wrapper records the exit
// status in a file: tmux's own #{pane_dead_status} can stay empty when its
// SIGCHLD is lost (tmux issue #311), which would make the test flaky.
// startTmuxEnv runs a command line in a private tmux server, with extra
// variables in the pane's environment (the tmux server's, which the pane
// inherits). The dead pane stays after exit so its last screen can be read,
// and a wrapper writes the exit status to a file (tmux's own
// pane_dead_status can miss the child's exit).
func startTmuxEnv(t *testing.T, width, height int, extraEnv []string, argv ...string) *tmuxPane {
	t.Helper()
	needBinary(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not on PATH: install tmux to run the terminal end-to-end tests")
	}
	dir := t.TempDir()
	p := &tmuxPane{
		t:        t,
		socket:   fmt.Sprintf("ragscope-e2e-%d-%d", os.Getpid(), tmuxSockets.Add(1)),
		env:      cleanEnv(t, append([]string{"TMUX_TMPDIR=" + dir}, extraEnv...)...),
		exitFile: filepath.Join(dir, "exit-status"),
	}
	t.Cleanup(func() { _ = p.tmux("kill-server") })
	wrapper := `f=$1; shift; "$@"; echo $? >"$f.tmp" && mv "$f.tmp" "$f"`
	cmd := append([]string{
		"start-server", ";",
		"set-option", "-g", "remain-on-exit", "on", ";",
		"new-session", "-d", "-s", "ragscope", "-x", strconv.Itoa(width), "-y", strconv.Itoa(height),
		"-c", repoFile("."), "sh", "-c", wrapper, "sh", p.exitFile,
	}, argv...)
	if out, err := p.tmuxOutput(cmd...); err != nil {
		t.Fatalf("starting tmux: %v\n%s", err, out)
	}
	return p
}

func startTmux(t *testing.T, width, height int, args ...string) *tmuxPane {
	t.Helper()
	return startTmuxEnv(t, width, height, nil, append([]string{binary}, args...)...)
}

func (p *tmuxPane) tmuxOutput(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-L", p.socket, "-f", "/dev/null"}, args...)...)
	cmd.Env = p.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (p *tmuxPane) tmux(args ...string) error {
	_, err := p.tmuxOutput(args...)
	return err
}

// keys sends tmux key names (Enter, Escape, s, ...).
func (p *tmuxPane) keys(keys ...string) {
	p.t.Helper()
	if out, err := p.tmuxOutput(append([]string{"send-keys", "-t", "ragscope"}, keys...)...); err != nil {
		p.t.Fatalf("send-keys %q: %v\n%s", keys, err, out)
	}
}

// typeText sends literal text, so "f<0.5" is not read as key names.
func (p *tmuxPane) typeText(s string) {
	p.t.Helper()
	if out, err := p.tmuxOutput("send-keys", "-t", "ragscope", "-l", s); err != nil {
		p.t.Fatalf("send-keys -l %q: %v\n%s", s, err, out)
	}
}

func (p *tmuxPane) screen() string {
	p.t.Helper()
	out, err := p.tmuxOutput("capture-pane", "-p", "-t", "ragscope")
	if err != nil {
		p.t.Fatalf("capture-pane: %v\n%s", err, out)
	}
	return out
}

// waitFor polls the screen until ok holds on two captures in a row that
// are the same, and returns that screen: tmux may show a frame half
// written, and a settled screen is what the user reads. On the deadline it
// fails the test showing the last screen seen.
func (p *tmuxPane) waitFor(what string, ok func(screen string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(screenDeadline)
	prev := ""
	for {
		s := p.screen()
		if ok(s) && s == prev {
			return s
		}
		prev = s
		if time.Now().After(deadline) {
			p.t.Fatalf("waited %s for %s; the screen is:\n%s", screenDeadline, what, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *tmuxPane) waitForText(texts ...string) string {
	p.t.Helper()
	return p.waitFor(fmt.Sprintf("%q on screen", texts), func(s string) bool {
		for _, want := range texts {
			if !strings.Contains(s, want) {
				return false
			}
		}
		return true
	})
}

// quit presses q, answers the quit question if the program asks it, and
// returns the exit status the wrapper recorded once the pane is dead.
func (p *tmuxPane) quit() int {
	p.t.Helper()
	p.keys("q")
	return p.waitExit(func(s string) {
		if strings.Contains(s, "Quit and stop the run?") {
			p.keys("y")
		}
	})
}

// exitStatus waits for the program to exit by itself and returns its status.
func (p *tmuxPane) exitStatus() int {
	p.t.Helper()
	return p.waitExit(nil)
}

// waitExit polls for the exit status file, showing each screen to onScreen
// (once) until the program has exited, and waits for the pane to be dead.
func (p *tmuxPane) waitExit(onScreen func(string)) int {
	p.t.Helper()
	deadline := time.Now().Add(screenDeadline)
	for {
		if b, err := os.ReadFile(p.exitFile); err == nil {
			code, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				p.t.Fatalf("exit status file holds %q", b)
			}
			p.waitFor("the pane to be dead", func(string) bool {
				out, err := p.tmuxOutput("display-message", "-p", "-t", "ragscope", "#{pane_dead}")
				return err == nil && strings.TrimSpace(out) == "1"
			})
			return code
		}
		s := p.screen()
		if onScreen != nil && strings.Contains(s, "Quit and stop the run?") {
			onScreen(s)
			onScreen = nil
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("ragscope did not exit within %s; the screen is:\n%s", screenDeadline, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tableRow is one sample row of the table as drawn.
type tableRow struct {
	index int
	line  string
	f     string // the faithfulness cell: a score, n/a, err or -
}

// columnTitles is the table's title line, or "" when no table is drawn.
func columnTitles(screen string) string {
	for _, l := range strings.Split(screen, "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && strings.Contains(l, " question ") && strings.HasPrefix(f[len(f)-1], "diagnosis") {
			return l
		}
	}
	return ""
}

// sortMarker is the column the table is sorted by: the title carrying the
// ^ (ascending) or v (descending) marker.
func sortMarker(screen string) string {
	for _, f := range strings.Fields(columnTitles(screen)) {
		if name, ok := strings.CutSuffix(f, "^"); ok {
			return name
		}
		if name, ok := strings.CutSuffix(f, "v"); ok && f != "diagnosis" && name != "" {
			return name
		}
	}
	return ""
}

var rowIndex = regexp.MustCompile(`^\S+\s+(\d+)\s`)

// tableRows parses the rows under the column titles: mark, index, question,
// then the F, AR, CP, CR cells and the diagnosis. No table, no rows.
func tableRows(t *testing.T, screen string) []tableRow {
	t.Helper()
	rows, err := parseRows(screen)
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// parseRows reads the table's rows off a screen; a row without its scores
// is an error (a frame captured while the terminal was being redrawn reads
// that way: inside a wait, try the next screen).
func parseRows(screen string) ([]tableRow, error) {
	titles := columnTitles(screen)
	if titles == "" {
		return nil, nil
	}
	lines := strings.Split(screen, "\n")
	start := slices.Index(lines, titles)
	var rows []tableRow
	for _, l := range lines[start+1:] {
		m := rowIndex.FindStringSubmatch(l)
		if m == nil {
			break
		}
		f := strings.Fields(l)
		if len(f) < 8 {
			return nil, fmt.Errorf("row %q has %d fields, want mark, index, question, 4 scores, diagnosis", l, len(f))
		}
		i, _ := strconv.Atoi(m[1])
		rows = append(rows, tableRow{index: i, line: l, f: f[len(f)-5]})
	}
	return rows, nil
}

const taxpayerQuestion = "我们公司从小规模纳税人转为一般纳税人后"

func TestTUIInTmux(t *testing.T) {
	p := startTmux(t, 120, 40, "testdata/demo.jsonl")

	// The offline judge scores the 14 demo samples; the header then says
	// the run has finished.
	s := p.waitForText("finished in", "14/14", "judge offline (lexical)")
	all := tableRows(t, s)
	if len(all) != 14 {
		t.Fatalf("%d rows after the run finished, want 14:\n%s", len(all), s)
	}
	var lowF []int
	for _, r := range all {
		if v, err := strconv.ParseFloat(r.f, 64); err == nil && v < 0.5 {
			lowF = append(lowF, r.index)
		}
	}
	if len(lowF) == 0 || len(lowF) == len(all) {
		t.Fatalf("the demo should have some, not all, faithfulness scores below 0.5; got %v:\n%s", lowF, s)
	}

	// s cycles the sort key; each press must move the marker.
	for range 8 {
		if sortMarker(s) == "F" {
			break
		}
		before := sortMarker(s)
		p.keys("s")
		s = p.waitFor("the sort marker to move from "+before, func(s string) bool {
			return sortMarker(s) != before && sortMarker(s) != ""
		})
	}
	if sortMarker(s) != "F" {
		t.Fatalf("s never made faithfulness the sort key:\n%s", s)
	}
	rows := tableRows(t, s)
	if len(rows) != 14 {
		t.Fatalf("%d rows after sorting, want 14:\n%s", len(rows), s)
	}
	for i := 1; i < len(rows); i++ {
		a, errA := strconv.ParseFloat(rows[i-1].f, 64)
		b, errB := strconv.ParseFloat(rows[i].f, 64)
		if errA == nil && errB == nil && a > b {
			t.Fatalf("sorted by F ascending but %v comes before %v:\n%s", a, b, s)
		}
	}

	// Open the taxpayer sample through a text filter, as a user would.
	p.keys("/")
	p.waitForText("/ f<0.5 ar<0.7")
	p.typeText(taxpayerQuestion)
	p.keys("Enter")
	s = p.waitForText("filter: "+taxpayerQuestion, "1 of 14 samples")
	if rows := tableRows(t, s); len(rows) != 1 || !strings.Contains(rows[0].line, taxpayerQuestion) {
		t.Fatalf("the filter should leave the taxpayer row alone:\n%s", s)
	}
	p.keys("Enter")
	s = p.waitForText("id zh-taxpayer-id")
	for _, want := range []string{"纳税人识别号保持不变", "negation conflict", "0 of 2 statements supported"} {
		if !strings.Contains(s, want) {
			t.Errorf("the taxpayer detail lacks %q", want)
		}
	}
	if t.Failed() {
		t.Fatalf("detail page:\n%s", s)
	}

	// esc goes back to the filtered table, a second esc clears the filter.
	p.keys("Escape")
	s = p.waitFor("the filtered table", func(s string) bool {
		return columnTitles(s) != "" && strings.Contains(s, "1 of 14 samples")
	})
	p.keys("Escape")
	p.waitFor("the filter to be cleared", func(s string) bool {
		rows, err := parseRows(s)
		return !strings.Contains(s, "filter: ") && err == nil && len(rows) == 14
	})

	p.keys("/")
	p.waitForText("/ f<0.5 ar<0.7")
	p.typeText("f<0.5")
	p.keys("Enter")
	s = p.waitForText("filter: f<0.5")
	if want := fmt.Sprintf("%d of 14 samples", len(lowF)); !strings.Contains(s, want) {
		t.Errorf("the filter line should say %q", want)
	}
	var got []int
	for _, r := range tableRows(t, s) {
		got = append(got, r.index)
	}
	slices.Sort(got)
	if !slices.Equal(got, lowF) {
		t.Fatalf("f<0.5 shows samples %v, want exactly those with F < 0.5: %v\n%s", got, lowF, s)
	}

	// The full key help, quitting included, at a comfortable width.
	p.keys("?")
	p.waitForText("keys: table", "quit now", "clear filter")
	p.keys("Escape")
	p.waitFor("the table after closing help", func(s string) bool {
		return columnTitles(s) != "" && strings.Contains(s, "filter: f<0.5")
	})

	if code := p.quit(); code != exitOK {
		t.Fatalf("ragscope exited with %d after q, want %d:\n%s", code, exitOK, p.screen())
	}
	// The summary went to the normal screen: the interface left the
	// alternate screen on its way out.
	s = p.screen()
	if !strings.Contains(s, "stored; reopen it with: ragscope open") || strings.Contains(s, "enter open") {
		t.Fatalf("after exit the terminal should show the run summary, not the interface:\n%s", s)
	}
}

func TestTUIInTmuxSmallTerminalAndHelp(t *testing.T) {
	p := startTmux(t, 80, 24, "testdata/demo.jsonl")
	s := p.waitForText("finished in", "14/14")
	rows := tableRows(t, s)
	if len(rows) == 0 || !strings.Contains(rows[0].line, "我们公司从小规模") {
		t.Fatalf("at 80x24 the taxpayer row should be the first row:\n%s", s)
	}
	// Nothing scrolled off: the title is on the first line and the key
	// help on the last, so no line overflowed the 80 columns.
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) != 24 || !strings.HasPrefix(lines[0], "ragscope ") || !strings.Contains(lines[23], "q quit") {
		t.Fatalf("at 80x24 the screen should run from the title to the key help:\n%s", s)
	}

	p.keys("?")
	s = p.waitForText("keys: table", "? or esc closes this page")
	// Everything fits 80 columns: the rightmost key column (quitting) and
	// the filter language's longest lines.
	for _, want := range []string{"enter open", "filter", "sort", "quit now", "f<0.5", "status:failed", "(< <= > >= = !=; ns: lower is better)", "diag:generation|retrieval", "err failed."} {
		if !strings.Contains(s, want) {
			t.Fatalf("the help page lacks %q:\n%s", want, s)
		}
	}
	p.keys("?")
	s = p.waitFor("the table after closing help", func(s string) bool {
		return columnTitles(s) != "" && !strings.Contains(s, "keys: table")
	})
	// The footer names the agreement panel even at 80 columns.
	if lines := strings.Split(strings.TrimRight(s, "\n"), "\n"); !strings.Contains(lines[len(lines)-1], "A agreement") {
		t.Fatalf("the footer does not name A:\n%s", s)
	}
	// The detail page's ? lists all its key columns, none cut.
	p.keys("Enter", "?")
	s = p.waitForText("keys: sample detail", "? or esc closes this page")
	for _, want := range []string{"previous section", "copy", "pager", "quit now", "next judged item", "agreement with labels"} {
		if !strings.Contains(s, want) {
			t.Fatalf("the detail page's help lacks %q:\n%s", want, s)
		}
	}
	for _, l := range strings.Split(s, "\n")[2:] {
		if strings.Contains(l, "…") {
			t.Fatalf("a cut line on the detail page's help: %q\n%s", l, s)
		}
	}
	p.keys("?")
	p.waitFor("the detail page after closing help", func(s string) bool { return !strings.Contains(s, "keys: sample detail") })
	p.keys("Escape")
	p.waitFor("the table after the detail page", func(s string) bool { return columnTitles(s) != "" })
	if code := p.quit(); code != exitOK {
		t.Fatalf("ragscope exited with %d, want %d", code, exitOK)
	}
}

func TestTUIHonoursNoColor(t *testing.T) {
	for _, tc := range []struct {
		name   string
		env    []string
		colour bool
	}{
		{"colour", nil, true},
		{"NO_COLOR", []string{"NO_COLOR=1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startTmuxEnv(t, 100, 30, append([]string{"TERM=xterm-256color"}, tc.env...), binary, "testdata/demo.jsonl")
			p.waitForText("finished in", "14/14")
			out, err := p.tmuxOutput("capture-pane", "-e", "-p", "-t", "ragscope")
			if err != nil {
				t.Fatal(err)
			}
			// Foreground colours: 30-37, 90-97, 38;5;N, 38;2;R;G;B.
			colour := regexp.MustCompile(`\x1b\[[0-9;]*(38;[25];|3[0-7]m|9[0-7]m)`).MatchString(out)
			if colour != tc.colour {
				t.Fatalf("colour sequences present: %v, want %v\n%q", colour, tc.colour, out)
			}
			if code := p.quit(); code != exitOK {
				t.Fatalf("exit %d", code)
			}
		})
	}
}

// Quitting a run in progress asks first; "n" keeps it running, "y" stops
// it, keeps the finished samples, and says how to resume.
func TestQuitDuringARunAsksFirst(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 50 * time.Millisecond })
	defer srv.Close()
	data := smallDataset(t, 40)
	db := filepath.Join(t.TempDir(), "r.db")
	p := startTmuxEnv(t, 120, 40, []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + srv.BaseURL()},
		binary, "run", "--concurrency", "2", "--db", db, data)
	p.waitFor("some samples to finish", func(s string) bool { return strings.Contains(s, "running") && tableRowsDone(s) >= 2 })
	p.keys("q")
	s := p.waitForText("Quit and stop the run? Finished work is kept.")
	p.keys("n")
	p.waitFor("the question to go", func(s string) bool { return !strings.Contains(s, "Quit and stop the run?") })
	if _, err := os.Stat(p.exitFile); err == nil {
		t.Fatalf("ragscope exited after n:\n%s", s)
	}
	if code := p.quit(); code != exitInterrupted {
		t.Fatalf("exit %d after quitting a run, want %d", code, exitInterrupted)
	}
	s = p.screen()
	if !strings.Contains(s, "finished samples are kept") || !strings.Contains(s, "--resume") {
		t.Fatalf("after quitting, the terminal does not say how to continue:\n%s", s)
	}
	// The store has the finished samples and the rest as cancelled.
	r := runBin(t, cleanEnv(t), "report", "latest", "--db", db)
	rep := decodeReport(t, r.stdout)
	ok, cancelled := 0, 0
	for _, smp := range rep.Samples {
		switch smp.Status[eval.Faithfulness] {
		case eval.StatusOK:
			ok++
		case eval.StatusCancelled:
			cancelled++
		}
	}
	if ok == 0 || cancelled == 0 || !rep.Run.Cancelled {
		t.Fatalf("stored run: %d ok, %d cancelled, cancelled flag %v", ok, cancelled, rep.Run.Cancelled)
	}
}

// tableRowsDone counts table rows with a score (not "(evaluating)").
func tableRowsDone(screen string) int {
	n := 0
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, "1.000") {
			n++
		}
	}
	return n
}

// `ragscope open latest` in a second terminal shows the run another
// terminal is evaluating, live: rows arrive as samples finish, and q there
// leaves the run going.
func TestOpenLatestShowsALiveRunInTmux(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 40 * time.Millisecond })
	defer srv.Close()
	data := smallDataset(t, 30)
	db := filepath.Join(t.TempDir(), "r.db")
	env := []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + srv.BaseURL()}
	runner := startTmuxEnv(t, 120, 40, env, binary, "run", "--concurrency", "2", "--db", db, data)
	runner.waitFor("the run to start", func(s string) bool { return strings.Contains(s, "running") && tableRowsDone(s) >= 1 })

	watcher := startTmux(t, 120, 40, "open", "latest", "--db", db)
	first := watcher.waitFor("the live run in the second terminal", func(s string) bool {
		return strings.Contains(s, "live run") && tableRowsDone(s) >= 1
	})
	seen := tableRowsDone(first)
	watcher.waitFor("more rows to arrive while the run goes on", func(s string) bool { return tableRowsDone(s) > seen })
	// Both terminals reach the end of the run.
	runner.waitFor("the run to finish", func(s string) bool { return strings.Contains(s, "30/30") })
	watcher.waitFor("the watcher to see the end", func(s string) bool { return strings.Contains(s, "30/30") })
	if code := watcher.quit(); code != 0 {
		t.Fatalf("open exited %d", code)
	}
	if code := runner.quit(); code != 0 {
		t.Fatalf("run exited %d", code)
	}
}

// A run submitted to `ragscope serve` is shown live by `attach`; q leaves
// it going and says how to come back, X stops it (after asking).
func TestAttachToADetachedRunInTmux(t *testing.T) {
	srv := fakejudge.New(fakejudge.Generic)
	srv.Set(func(s *fakejudge.Server) { s.Delay = 60 * time.Millisecond })
	defer srv.Close()
	data := smallDataset(t, 40)
	db := filepath.Join(t.TempDir(), "r.db")
	env := cleanEnv(t, "OPENAI_BASE_URL="+srv.BaseURL())
	_, sub := serveAndDetach(t, env, "k", db, "--concurrency", "1", data)
	id := strings.TrimSpace(sub.stdout)

	// What attach prints after the interface closes is read from a file:
	// the screen is a race between tmux restoring the main screen and a
	// process that exits a millisecond after it printed.
	errFile := filepath.Join(t.TempDir(), "attach.err")
	p := startTmuxEnv(t, 120, 40, nil, "sh", "-c", `"$0" attach "$1" --db "$2" 2>"$3"`, binary, id, db, errFile)
	p.waitFor("the detached run, live", func(s string) bool {
		return strings.Contains(s, "live run "+id) && strings.Contains(s, "X stops it") && tableRowsDone(s) >= 1
	})
	p.keys("q")
	if code := p.exitStatus(); code != 0 {
		t.Fatalf("attach exited %d after q:\n%s", code, p.screen())
	}
	if b, _ := os.ReadFile(errFile); !strings.Contains(string(b), "run "+id+" continues; attach again with: ragscope attach "+id) {
		t.Fatalf("after q, attach does not say the run continues: %q", b)
	}

	// An attached client killed outright (a dropped SSH link) costs the run nothing.
	p = startTmux(t, 120, 40, "attach", id, "--db", db)
	before := p.waitFor("the run, live again", func(s string) bool { return strings.Contains(s, "live run "+id) })
	pid, err := p.tmuxOutput("display-message", "-p", "-t", "ragscope", "#{pane_pid}")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("pkill", "-KILL", "-P", strings.TrimSpace(pid)).CombinedOutput(); err != nil {
		t.Fatalf("killing attach: %v %s", err, out)
	}
	p.exitStatus()
	if r := runBin(t, env, "runs", "--db", db); !strings.Contains(r.stdout, "running (pid") {
		t.Fatalf("after attach was killed, the run is not running any more:\n%s\nbefore the kill:\n%s", r.stdout, before)
	}

	p = startTmux(t, 120, 40, "attach", "latest", "--db", db)
	p.waitForText("live run " + id)
	p.keys("X")
	p.waitForText("Stop run " + id + "?")
	p.keys("y")
	p.waitFor("the run to stop", func(s string) bool { return strings.Contains(s, "finished") || strings.Contains(s, "stopped") })
	for deadline := time.Now().Add(screenDeadline); ; {
		r := runBin(t, env, "report", id, "--db", db)
		if r.code == 0 {
			if rep := decodeReport(t, r.stdout); rep.Run.FinishedAt != nil {
				if !rep.Run.Cancelled {
					t.Fatalf("X then y: the run finished without being stopped")
				}
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stopped run has no end recorded: %s", r.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.quit()
}
