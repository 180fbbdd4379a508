package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/eval/report/labels"
	"github.com/ragscope/ragscope/internal/holder"
)

func TestTheSecondProcessGoesThroughTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	a := openShared(t, path, Hold)
	if !a.Holding() {
		t.Fatal("the first opener does not hold the database")
	}
	b := openShared(t, path, Hold)
	if b.Holding() {
		t.Fatal("the second opener holds the database too")
	}
	if h, ok := b.Holder(); !ok || h.PID != os.Getpid() || h.Role != "test" {
		t.Fatalf("holder %+v", h)
	}
	r := openShared(t, path, Read)
	if r.Holding() {
		t.Fatal("a reader opened the held file itself")
	}
	id, err := b.NewRunID()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.PutRun(report.RunInfo{ID: id, Samples: 1}); err != nil {
		t.Fatal(err)
	}
	for name, st := range map[string]*Shared{"holder": a, "reader": r} {
		if runs, err := st.Runs(); err != nil || len(runs) != 1 || runs[0].ID != id {
			t.Fatalf("%s sees %v, %v", name, runs, err)
		}
	}
}

// The holder lets go while a client depends on it: the client's next call
// takes the database over, and nothing stored is lost.
func TestClientTakesOverWhenTheHolderGoes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	a := openShared(t, path, Hold)
	b := openShared(t, path, Hold)
	if err := a.PutRun(report.RunInfo{ID: "before", Samples: 1}); err != nil {
		t.Fatal(err)
	}
	if err := b.BeginRun("client-run"); err != nil {
		t.Fatal(err)
	}
	if live, _ := a.Live(); live["client-run"].PID != os.Getpid() {
		t.Fatalf("the holder does not list the client's run as live: %v", live)
	}
	a.Close()
	if err := b.PutRun(report.RunInfo{ID: "after", Samples: 1}); err != nil {
		t.Fatalf("write after the holder went: %v", err)
	}
	if !b.Holding() {
		t.Fatal("the client did not take the database over")
	}
	runs, err := b.Runs()
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs after takeover: %v, %v", runs, err)
	}
	if live, _ := b.Live(); live["client-run"].PID == 0 {
		t.Fatalf("the client's run is not live after the takeover: %v", live)
	}
	// A newcomer now goes through the new holder.
	c := openShared(t, path, Read)
	if h, ok := c.Holder(); !ok || h.PID != os.Getpid() {
		t.Fatalf("the newcomer is not a client of the new holder: %+v %v", h, ok)
	}
}

// A paid reply (or a result, a label) whose write is the first call to
// find the holder gone is written to the database the client took over:
// nothing the client was given to store is dropped with its holder.
func TestAWriteThatFindsItsHolderGoneIsStored(t *testing.T) {
	req := eval.ChatRequest{Model: "m", Messages: []eval.Message{{Role: "user", Content: "q"}}}
	ereq := eval.EmbedRequest{Endpoint: "e", Model: "m"}
	label := labels.Label{Key: labels.LabelKey("s", "faithfulness_verdicts", "i"), SampleKey: "s", Task: "faithfulness_verdicts", Item: "i", Value: 1}
	for _, tc := range []struct {
		name  string
		write func(*Shared) error
		read  func(*Shared) (bool, error)
	}{
		{"chat reply",
			func(b *Shared) error { return b.PutChat(req.Key(), req, eval.ChatResponse{Choices: []string{"a"}}) },
			func(b *Shared) (bool, error) { _, ok, err := b.LookupChat(req.Key()); return ok, err }},
		{"embeddings",
			func(b *Shared) error { return b.PutEmbeddings(ereq, []string{"x"}, [][]float64{{1, 0}}) },
			func(b *Shared) (bool, error) {
				v, err := b.LookupEmbeddings([]string{eval.EmbedKey("e", "m", 0, "x")})
				return len(v) == 1 && v[0] != nil, err
			}},
		{"results",
			func(b *Shared) error {
				if err := b.PutRun(report.RunInfo{ID: "r", Samples: 1}); err != nil {
					return err
				}
				return b.PutResults("r", []*eval.Result{{Index: 0}})
			},
			func(b *Shared) (bool, error) { _, rs, err := b.Run("r"); return len(rs) == 1, err }},
		{"label",
			func(b *Shared) error { return b.PutLabels([]labels.Label{label}) },
			func(b *Shared) (bool, error) {
				ls, err := b.Labels([]string{label.Key})
				return ls[label.Key].Value == 1, err
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "r.db")
			a := openShared(t, path, Hold)
			b := openShared(t, path, Hold)
			a.Close()
			if err := tc.write(b); err != nil {
				t.Fatalf("write after the holder went: %v", err)
			}
			if !b.Holding() {
				t.Fatal("the client did not take the database over")
			}
			b.Close()
			c := openShared(t, path, Read)
			if ok, err := tc.read(c); err != nil || !ok {
				t.Fatalf("the write is not in the database: %v %v", ok, err)
			}
		})
	}
}

// Alone, a reader opens the file read-only and serves nothing; a holder
// leaves no socket behind when it closes.
func TestNothingLingers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	a := openShared(t, path, Hold)
	if err := a.PutRun(report.RunInfo{ID: "x", Samples: 1}); err != nil {
		t.Fatal(err)
	}
	sock, err := holder.SocketPath(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(sock); err != nil {
		t.Fatalf("the holder serves no socket: %v", err)
	}
	a.Close()
	if _, err := os.Stat(filepath.Dir(sock)); !os.IsNotExist(err) {
		t.Fatalf("the socket or its directory is left behind: %v", err)
	}
	r := openShared(t, path, Read)
	if !r.Holding() || !r.ReadOnly() {
		t.Fatal("a lone reader does not open the file read-only")
	}
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Fatal("a reader serves the database")
	}
	if _, err := Open(filepath.Join(t.TempDir(), "none.db"), OpenOptions{Mode: Read}); err == nil {
		t.Fatal("reading a database that does not exist succeeded")
	}
}

func openShared(t *testing.T, path string, mode int) *Shared {
	t.Helper()
	st, err := Open(path, OpenOptions{Mode: mode, Role: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// RunSummaries gives the same summaries, in order, whether this process
// holds the file (read in place) or a holder serves it, and the same next.
func TestRunSummariesHeldOrThroughTheHolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.db")
	a := openShared(t, path, Hold)
	b := openShared(t, path, Hold)
	if !a.Holding() || b.Holding() {
		t.Fatal("want a holder and a client")
	}
	if err := a.PutRun(report.RunInfo{ID: "r", Samples: 10}); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if i == 4 {
			continue
		}
		f := float64(i) / 10
		res := &eval.Result{Index: i, ID: "s", Question: "q", Contexts: []string{"c"},
			Scores: map[eval.Metric]*float64{eval.Faithfulness: &f}, Status: map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK}}
		if err := a.PutResult("r", res); err != nil {
			t.Fatal(err)
		}
	}
	read := func(st *Shared) (got []string, next int) {
		next, err := st.RunSummaries("r", 2, 4, func(r *eval.Result) error {
			// A summary leaves out the contexts, read in place or sent.
			got = append(got, fmt.Sprintf("%d %v %d", r.Index, *r.Scores[eval.Faithfulness], len(r.Contexts)))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return got, next
	}
	held, heldNext := read(a)
	served, servedNext := read(b)
	if want := "[2 0.2 0 3 0.3 0 5 0.5 0 6 0.6 0]"; fmt.Sprint(held) != want || fmt.Sprint(served) != want || heldNext != 7 || servedNext != 7 {
		t.Errorf("held: %v next %d; through the holder: %v next %d; want %s next 7", held, heldNext, served, servedNext, want)
	}
}
