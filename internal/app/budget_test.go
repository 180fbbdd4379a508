package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/internal/store"
	"github.com/ragscope/ragscope/prompts"
	"github.com/ragscope/ragscope/tui"
)

// settle runs a command and the commands of the batches it returns, and
// feeds what they return to the model; the commands the model answers
// with are not run (the caller runs those it means to).
func settle(m *tui.Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			settle(m, c)
		}
	default:
		m.Update(msg)
	}
}

func screenOf(m *tui.Model) string {
	return strings.Join(strings.Fields(ansi.Strip(m.View().Content)), " ")
}

func keyPress(k string) tea.KeyPressMsg { return tea.KeyPressMsg{Code: []rune(k)[0], Text: k} }

// budgetSession is a run of three fresh samples over the fake judge with
// --confirm-over a millionth of a dollar, which any call exceeds.
func budgetSession(t *testing.T, srv *fakejudge.Server) (*Session, *store.Shared) {
	t.Helper()
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	cfg := estimateConfig(srv, smallDataset(t, 3))
	cfg.Stream, cfg.ConfirmOver = false, 0.000001
	return estPrepared(t, cfg, st), st
}

// recorded says whether the store holds the run.
func recorded(t *testing.T, st *store.Shared, id string) bool {
	t.Helper()
	runs, err := st.Runs()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if r.ID == id {
			return true
		}
	}
	return false
}

// The interface opens on the cost page of the real estimate, sends
// nothing and records nothing until y; n leaves with no run.
func TestFirstRunWaitsForTheAnswer(t *testing.T) {
	for _, answer := range []string{"n", "y"} {
		t.Run(answer, func(t *testing.T) {
			srv := fakejudge.New(estJudge)
			defer srv.Close()
			s, st := budgetSession(t, srv)
			fr := &firstRun{s: s}
			m := tui.New(tui.Options{Dataset: s.Cfg.Dataset, Total: s.Total(), Judge: s.Judge.Info(), Metrics: s.Metrics,
				Live: true, RunID: s.Info().ID, First: fr.options()})
			m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
			settle(m, m.Init()) // the estimate, in its command
			screen := screenOf(m)
			for _, want := range []string{"over --confirm-over $1e-06", "The run has not started. Start it?", "faithfulness", "total"} {
				if !strings.Contains(screen, want) {
					t.Fatalf("the cost page misses %q:\n%s", want, screen)
				}
			}
			if n, e := srv.Count(""), len(srv.EmbedBatches()); n != 0 || e != 0 {
				t.Fatalf("before the answer the judge got %d chat and %d embedding requests", n, e)
			}
			if recorded(t, st, s.Info().ID) {
				t.Fatal("the run was recorded before the answer")
			}

			_, cmd := m.Update(keyPress(answer))
			if answer == "n" {
				if _, ok := cmd().(tea.QuitMsg); !ok {
					t.Fatal("n did not quit")
				}
				if run, err := fr.close(); run != nil || err != nil {
					t.Fatalf("n: run %v, err %v", run, err)
				}
				if n, e := srv.Count(""), len(srv.EmbedBatches()); n != 0 || e != 0 || recorded(t, st, s.Info().ID) {
					t.Fatalf("after n: %d chat and %d embedding requests, recorded %v", n, e, recorded(t, st, s.Info().ID))
				}
				return
			}
			settle(m, cmd) // the start, in its command
			run, err := fr.close()
			if run == nil || err != nil {
				t.Fatalf("y: run %v, err %v", run, err)
			}
			for range run.Events {
			}
			if cancelled, err := run.Wait(); cancelled || err != nil {
				t.Fatalf("the run: cancelled %v, %v", cancelled, err)
			}
			if !recorded(t, st, run.ID) {
				t.Fatal("the run confirmed with y is not recorded")
			}
			// The page's estimate is what the run then sent.
			est := estimateOf(t, s) // everything is cached now
			if est.Calls.Chat+est.Calls.Embeddings != 0 {
				t.Errorf("after the run the estimate still plans %+v", est.Calls)
			}
			if got := estSentBy(srv).total(); got == 0 {
				t.Fatal("the confirmed run sent nothing")
			}
			if _, err := (&firstRun{s: s, closed: true}).start(context.Background()); err == nil {
				t.Fatal("a run started after the interface closed")
			}
		})
	}
}

// The cost page shows the numbers of the estimator, and the run sends
// exactly the calls it shows.
func TestFirstRunCostIsWhatTheRunSends(t *testing.T) {
	srv := fakejudge.New(estJudge)
	defer srv.Close()
	s, _ := budgetSession(t, srv)
	fr := &firstRun{s: s}
	c, err := fr.estimate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !c.Over || c.Total.USD == nil || len(c.ByMetric) != 4 || !strings.Contains(c.Summary, "the run is estimated at") {
		t.Fatalf("cost %+v", c)
	}
	if _, err := fr.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	run, _ := fr.close()
	for range run.Events {
	}
	run.Wait()
	got := estSentBy(srv)
	for _, mc := range c.ByMetric {
		chat, embed := 0, 0
		for task, n := range got.tasks {
			if eval.MetricOfTask(task) != mc.Metric {
				continue
			}
			if task == eval.TaskEmbeddings {
				embed += n
			} else {
				chat += n
			}
		}
		if mc.Chat != chat || mc.Embeddings != embed {
			t.Errorf("%s: the page said %d chat and %d embedding calls, the run sent %d and %d", mc.Metric, mc.Chat, mc.Embeddings, chat, embed)
		}
	}
}

// A re-run's plan is the estimator's, with the edited prompts: its calls
// are the requests the re-run then sends, per metric, and over
// --confirm-over it says so.
func TestRerunPlanIsWhatTheRerunSends(t *testing.T) {
	srv := fakejudge.New(estJudge)
	defer srv.Close()
	pdir := filepath.Join(t.TempDir(), "prompts")
	if err := os.Mkdir(pdir, 0o755); err != nil {
		t.Fatal(err)
	}
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	cfg := estimateConfig(srv, smallDataset(t, 4))
	cfg.Stream, cfg.PromptsDir, cfg.ConfirmOver = false, pdir, 0.000001
	s := estPrepared(t, cfg, st)
	estRunToEnd(t, s)
	h := NewHost(s)

	// Edit the verdicts and the generated questions: the questions come
	// back different, so their embeddings are new calls too.
	for _, task := range []string{prompts.TaskFaithfulnessVerdicts, prompts.TaskAnswerRelevancyQuestion} {
		path, err := h.EditPath(task, "en")
		if err != nil {
			t.Fatal(err)
		}
		src, _ := os.ReadFile(path)
		if err := os.WriteFile(path, append([]byte("Be strict.\n"), src...), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := h.Reload(nil); err != nil {
			t.Fatal(err)
		}
	}
	metrics := []eval.Metric{eval.Faithfulness, eval.AnswerRelevancy}
	plan, err := h.Plan(context.Background(), []int{0, 2, 3}, metrics)
	if err != nil {
		t.Fatal(err)
	}
	before := estSentBy(srv)
	_, events, err := h.Rerun(context.Background(), plan)
	if err != nil {
		t.Fatal(err)
	}
	drain(t, events)
	got := estSentBy(srv).minus(before)
	// 3 verdict calls, 3 question calls, 3 embedding calls of the new questions.
	if plan.Calls != 9 || plan.Calls != got.total() {
		t.Fatalf("the plan counted %d calls, the re-run sent %d (%v); want 9", plan.Calls, got.total(), got.tasks)
	}
	c := plan.Cost
	if c == nil || len(c.ByMetric) != 2 || c.Total.Chat+c.Total.Embeddings != plan.Calls || c.Total.USD == nil || *c.Total.USD <= 0 {
		t.Fatalf("plan cost %+v", c)
	}
	for _, mc := range c.ByMetric {
		want := map[eval.Metric][2]int{
			eval.Faithfulness:    {got.tasks[prompts.TaskFaithfulnessVerdicts] + got.tasks[prompts.TaskFaithfulnessStatements], 0},
			eval.AnswerRelevancy: {got.tasks[prompts.TaskAnswerRelevancyQuestion], got.tasks[eval.TaskEmbeddings]},
		}[mc.Metric]
		if mc.Chat != want[0] || mc.Embeddings != want[1] {
			t.Errorf("%s: planned %d chat and %d embedding calls, sent %v", mc.Metric, mc.Chat, mc.Embeddings, want)
		}
	}
	if !c.Over || !strings.Contains(c.Summary, "the re-run is estimated at") || !strings.Contains(c.Summary, "over --confirm-over $1e-06") {
		t.Fatalf("over the budget: over %v, %q", c.Over, c.Summary)
	}
	// Re-planned now, everything is cached: nothing to send or pay.
	again, err := h.Plan(context.Background(), []int{0, 2, 3}, metrics)
	if err != nil {
		t.Fatal(err)
	}
	if again.Calls != 0 || again.Cost.Over || again.Cached == 0 {
		t.Fatalf("the plan after the re-run: %+v", again)
	}
}

// The cost page of a run with criteria has a row per criterion after the
// metrics: the yes_no's draws and the rubric's call are what the run
// sends of their tasks, the exact check costs nothing.
func TestFirstRunCostOfCriteria(t *testing.T) {
	srv := fakejudge.New(estJudge)
	defer srv.Close()
	crit := filepath.Join(t.TempDir(), "c.yaml")
	if err := os.WriteFile(crit, []byte("criteria:\n  - name: says_answer\n    kind: contains\n    values: [answer]\n"+
		"  - name: polite\n    kind: yes_no\n    text: polite\n    strictness: 3\n"+
		"  - name: tone\n    kind: rubric\n    text: the register\n    levels: {1: curt, 2: plain, 3: courteous}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := openShared(t, filepath.Join(t.TempDir(), "r.db"), store.Hold)
	cfg := estimateConfig(srv, smallDataset(t, 3))
	cfg.Stream, cfg.ConfirmOver, cfg.Metrics, cfg.Criteria = false, 0.000001, "faithfulness", crit
	fr := &firstRun{s: estPrepared(t, cfg, st)}
	c, err := fr.estimate(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.ByMetric) != 4 || c.ByMetric[1].Metric != "says_answer" || c.ByMetric[3].Metric != "tone" {
		t.Fatalf("cost rows %+v", c.ByMetric)
	}
	if _, err := fr.start(context.Background()); err != nil {
		t.Fatal(err)
	}
	run, _ := fr.close()
	for range run.Events {
	}
	run.Wait()
	for _, tc := range []struct {
		row  int
		task string
	}{{1, ""}, {2, prompts.TaskCriterionYesNo}, {3, prompts.TaskCriterionRubric}} {
		sent := 0
		if tc.task != "" {
			sent = srv.Count(tc.task)
		}
		if mc := c.ByMetric[tc.row]; mc.Chat != sent || (sent > 0 && (mc.USD == nil || *mc.USD <= 0)) {
			t.Errorf("%s: the page said %+v, the run sent %d", mc.Metric, mc, sent)
		}
	}
	if srv.Count(prompts.TaskCriterionYesNo) == 0 {
		t.Error("the run judged no criterion")
	}
}
