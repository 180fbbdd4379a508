package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/store"
)

// echoJudge answers every call from its request, for filling a database.
type echoJudge struct{}

func (echoJudge) Chat(_ context.Context, req eval.ChatRequest) (eval.ChatResponse, error) {
	return eval.ChatResponse{Choices: []string{fmt.Sprintf(`{"statements":["%s %d"]}`, req.Model, req.Draw)}, FinishReasons: []string{"stop"}}, nil
}

func (echoJudge) Embed(_ context.Context, req eval.EmbedRequest) (eval.EmbedResponse, error) {
	out := eval.EmbedResponse{}
	for i := range req.Texts {
		out.Vectors = append(out.Vectors, []float64{0.25, float64(i%7) / 8, 0.5, 0.125})
	}
	return out, nil
}

const (
	corpusRuns    = 76
	corpusSamples = 20
)

var (
	dbCorpusOnce  sync.Once
	dbCorpusBytes []byte
)

// dbCorpus is a 4 MiB database of 76 finished runs of 20 samples, filled
// the way runs fill one (concurrent samples, a judge call, an embedding and
// a result each), made once and kept in memory.
func dbCorpus(t *testing.T) []byte {
	t.Helper()
	dbCorpusOnce.Do(func() {
		p := filepath.Join(t.TempDir(), "corpus.db")
		db, err := cache.Open(p, cache.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := db.Client(echoJudge{}, cache.ReadWrite)
		base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
		for r := 0; r < corpusRuns; r++ {
			started := base.Add(time.Duration(r) * time.Minute)
			info := report.RunInfo{ID: fmt.Sprintf("%s-%04x", started.Format("20060102-150405"), r), Dataset: "testdata/demo.jsonl",
				StartedAt: started, Samples: corpusSamples, Metrics: eval.AllMetrics}
			if err := db.PutRun(info); err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			errs := make(chan error, corpusSamples)
			for i := 0; i < corpusSamples; i++ {
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					req := eval.ChatRequest{Endpoint: "e", Model: info.ID, Draw: i, Messages: []eval.Message{{Role: "user", Content: strings.Repeat("问题", 40)}}}
					if _, err := c.Chat(context.Background(), req); err != nil {
						errs <- err
						return
					}
					if _, err := c.Embed(context.Background(), eval.EmbedRequest{Endpoint: "e", Model: "m", Texts: []string{fmt.Sprintf("%s text %d", info.ID, i)}}); err != nil {
						errs <- err
						return
					}
					one := 1.0
					res := &eval.Result{Index: i, ID: fmt.Sprintf("s%d", i), Question: "Does the TIN change?",
						Answer:   strings.Repeat("转为一般纳税人后，纳税人识别号不变。", 3+i%5),
						Contexts: []string{"The TIN stays the same."},
						Scores:   map[eval.Metric]*float64{eval.Faithfulness: &one},
						Status:   map[eval.Metric]eval.Status{eval.Faithfulness: eval.StatusOK},
					}
					errs <- db.PutResult(info.ID, res)
				}(i)
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatal(err)
				}
			}
			fin := started.Add(30 * time.Second)
			info.FinishedAt = &fin
			if err := db.PutRun(info); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		dbCorpusBytes = b
		if bdb, err := bolt.Open(p, 0o600, &bolt.Options{ReadOnly: true}); err == nil {
			_ = bdb.View(func(tx *bolt.Tx) error { t.Logf("corpus: %d bytes, pages up to %d", len(b), tx.Size()); return nil })
			bdb.Close()
		}
	})
	if dbCorpusBytes == nil {
		t.Fatal("no corpus")
	}
	return dbCorpusBytes
}

func writeCorpus(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "ragscope.db")
	if err := os.WriteFile(p, dbCorpus(t), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// usedLeafPages lists the leaf pages a healthy database uses, in order.
func usedLeafPages(t *testing.T, p string) []int {
	t.Helper()
	bdb, err := bolt.Open(p, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	var ids []int
	_ = bdb.View(func(tx *bolt.Tx) error {
		for id := 2; ; id++ {
			info, err := tx.Page(id)
			if err != nil {
				t.Fatal(err)
			}
			if info == nil {
				break
			}
			if info.Type == "leaf" {
				ids = append(ids, id)
			}
		}
		return nil
	})
	if len(ids) < 10 {
		t.Fatalf("only %d leaf pages", len(ids))
	}
	sort.Ints(ids)
	return ids
}

func writeAt(t *testing.T, p string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

type damagedDB struct {
	name    string
	make    func(t *testing.T) string
	damaged bool // a damaged ragscope database (salvage applies), not another kind of file
	check   string
}

func damagedDBs() []damagedDB {
	return []damagedDB{
		{"truncated", func(t *testing.T) string {
			p := writeCorpus(t)
			fi, _ := os.Stat(p)
			if err := os.Truncate(p, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
			return p
		}, true, "the file is truncated"},
		{"zeroed page", func(t *testing.T) string {
			p := writeCorpus(t)
			ids := usedLeafPages(t, p)
			writeAt(t, p, int64(ids[len(ids)/2])*4096, make([]byte, 4096))
			return p
		}, true, "identifies itself as 0"},
		{"random bytes", func(t *testing.T) string {
			p := writeCorpus(t)
			fi, _ := os.Stat(p)
			id := 0
			for _, l := range usedLeafPages(t, p) {
				if int64(l)*4096 >= fi.Size()/4 {
					id = l
					break
				}
			}
			noise := make([]byte, 3*4096)
			rand.New(rand.NewSource(11)).Read(noise)
			writeAt(t, p, int64(id)*4096+100, noise)
			return p
		}, true, "page"},
		{"empty", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "ragscope.db")
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			old := time.Now().Add(-time.Hour)
			_ = os.Chtimes(p, old, old)
			return p
		}, false, "the file is empty"},
		{"another program's", func(t *testing.T) string {
			p := filepath.Join(t.TempDir(), "ragscope.db")
			b := append([]byte("SQLite format 3\x00"), make([]byte, 16384)...)
			rand.New(rand.NewSource(5)).Read(b[64:])
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
			return p
		}, false, "not a bbolt database"},
	}
}

// No command crashes on a damaged database: each exits 1 with a message
// naming the file and what to do.
func TestDamagedDatabaseCommands(t *testing.T) {
	needBinary(t)
	for _, d := range damagedDBs() {
		t.Run(d.name, func(t *testing.T) {
			p := d.make(t)
			env := cleanEnv(t)
			cmds := [][]string{
				{"runs", "--db", p},
				{"report", "latest", "--db", p},
				{"cache", "stats", "--db", p},
				{"run", "--headless", "--offline", "--db", p, repoFile("testdata/demo.jsonl")},
			}
			for _, args := range cmds {
				r := runBin(t, env, args...)
				name := strings.Join(args[:2], " ")
				if r.code != exitFatal {
					t.Errorf("%s: exit %d, want %d\n%s", name, r.code, exitFatal, r.stderr)
				}
				for _, bad := range []string{"goroutine", "panic", "fatal error", "SIGSEGV"} {
					if strings.Contains(r.stderr, bad) {
						t.Errorf("%s: stderr has %q:\n%s", name, bad, r.stderr)
					}
				}
				if !strings.Contains(r.stderr, p) {
					t.Errorf("%s: stderr does not name %s:\n%s", name, p, r.stderr)
				}
				if d.damaged && !strings.Contains(r.stderr, "ragscope db salvage --db "+p+" --out") {
					t.Errorf("%s: stderr does not say `db salvage`:\n%s", name, r.stderr)
				}
				if !d.damaged && !strings.Contains(r.stderr, "not a ragscope database") {
					t.Errorf("%s: stderr:\n%s", name, r.stderr)
				}
			}
			r := runBin(t, env, "db", "check", "--db", p)
			if r.code != exitFatal || !strings.Contains(r.stdout, d.check) {
				t.Errorf("db check: exit %d, want 1 and %q\n%s%s", r.code, d.check, r.stdout, r.stderr)
			}
			want := "DAMAGED"
			if !d.damaged {
				want = "NOT A RAGSCOPE DATABASE"
			}
			if !strings.Contains(r.stdout, want) {
				t.Errorf("db check says:\n%s", r.stdout)
			}
		})
	}
}

func TestDBCheckHealthy(t *testing.T) {
	p := writeCorpus(t)
	r := runBin(t, cleanEnv(t), "db", "check", "--db", p)
	if r.code != exitOK || !strings.Contains(r.stdout, "ok, no problems found (bbolt's own check too)") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, fmt.Sprintf("results    %d", corpusRuns*corpusSamples)) {
		t.Errorf("counts:\n%s", r.stdout)
	}
	r = runBin(t, cleanEnv(t), "db", "check", "--db", p, "--json")
	var rep cache.Report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitOK || !rep.OK() || checkOf(rep, cache.KindRuns).Readable != corpusRuns {
		t.Errorf("json: %v %d %+v", err, r.code, rep)
	}
	// Missing file, and usage.
	if r := runBin(t, cleanEnv(t), "db", "check", "--db", p+".nope"); r.code != exitFatal || !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("missing: %d %s", r.code, r.stderr)
	}
	if r := runBin(t, cleanEnv(t), "db", "salvage", "--db", p); r.code != exitUsage || !strings.Contains(r.stderr, "--out NEW") {
		t.Errorf("salvage without --out: %d %s", r.code, r.stderr)
	}
	if r := runBin(t, cleanEnv(t), "db", "fix"); r.code != exitUsage {
		t.Errorf("unknown subcommand: %d", r.code)
	}
}

// A database another ragscope process holds is not checked under it.
func TestDBCheckRefusesAHeldDatabase(t *testing.T) {
	p := writeCorpus(t)
	st, err := store.Open(p, store.OpenOptions{Mode: store.Hold, Role: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for _, sub := range [][]string{{"db", "check", "--db", p}, {"db", "salvage", "--db", p, "--out", p + ".new"}} {
		r := runBin(t, cleanEnv(t), sub...)
		want := fmt.Sprintf("database %s is in use by pid %d (ragscope test)", p, os.Getpid())
		if r.code != exitFatal || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", sub[1], r.code, r.stderr, want)
		}
	}
	if _, err := os.Stat(p + ".new"); err == nil {
		t.Error("salvage wrote while the database was held")
	}
}

func TestDBSalvageTruncated(t *testing.T) {
	p := damagedDBs()[0].make(t)
	before, _ := os.ReadFile(p)
	out := filepath.Join(t.TempDir(), "new.db")
	env := cleanEnv(t)
	r := runBin(t, env, "db", "salvage", "--db", p, "--out", out)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"salvaged " + p + " into " + out, "method tree+scan", "COPIED", "LOST", "runs", "results", "--db " + out, "mv " + p + " " + p + ".damaged"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, r.stdout)
		}
	}
	t.Logf("\n%s", r.stdout)
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Error("the damaged file was modified")
	}
	// Again, to a new file, for the figures.
	out2 := filepath.Join(t.TempDir(), "new2.db")
	r = runBin(t, env, "db", "salvage", "--db", p, "--out", out2, "--json")
	var rep cache.SalvageReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || r.code != exitOK {
		t.Fatalf("json: %v %d %s", err, r.code, r.stdout)
	}
	runs := salvagedOf(rep, cache.KindRuns).Copied + len(rep.StubRuns)
	results := salvagedOf(rep, cache.KindResults)
	// Measured over 8 corpora (bbolt places pages differently each time;
	// the pages reach 3.70-3.79 MB of the 4 MiB file, truncated to 2 MiB):
	// 74-76 of the 76 runs (8-30 of them rebuilt from their results),
	// 1243-1297 of the 1520 results, 460-521 of the 1520 chat entries and
	// 465-675 of the 1520 embeddings came back.
	if runs < 68 || results.Copied < 1150 {
		t.Errorf("salvaged %d runs and %d results of %d and %d: %+v", runs, results.Copied, corpusRuns, corpusRuns*corpusSamples, rep)
	}
	if results.Lost == 0 || results.Copied+results.Lost > corpusRuns*corpusSamples {
		t.Errorf("results lost %d", results.Lost)
	}
	// Refuses to overwrite.
	if r := runBin(t, env, "db", "salvage", "--db", p, "--out", out); r.code != exitUsage || !strings.Contains(r.stderr, "already exists") {
		t.Errorf("second salvage onto the same file: %d %s", r.code, r.stderr)
	}

	// The new file works with every command, and every result decodes.
	if r := runBin(t, env, "db", "check", "--db", out); r.code != exitOK {
		t.Errorf("db check of the salvaged file: %d\n%s", r.code, r.stdout)
	}
	if r := runBin(t, env, "runs", "--db", out); r.code != exitOK || strings.Count(r.stdout, "\n") != runs+1 {
		t.Errorf("runs: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runBin(t, env, "report", "latest", "--db", out); r.code != exitOK {
		t.Errorf("report: %d %s", r.code, r.stderr)
	}
	if r := runBin(t, env, "run", "--headless", "--offline", "--db", out, repoFile("testdata/demo.jsonl")); r.code != exitOK && r.code != exitFailures {
		t.Errorf("run on the salvaged file: %d %s", r.code, r.stderr)
	}
	db, err := cache.Open(out, cache.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	infos, err := db.Runs()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, info := range infos {
		if info.Dataset != "testdata/demo.jsonl" && info.Dataset != "(salvaged)" {
			continue // the offline run above
		}
		_, rs, err := db.Run(info.ID)
		if err != nil {
			t.Fatalf("run %s: %v", info.ID, err)
		}
		for i, res := range rs {
			if res == nil {
				continue
			}
			n++
			if res.Index != i || res.Status[eval.Faithfulness] != eval.StatusOK || !strings.HasPrefix(res.Answer, "转为一般纳税人后") {
				t.Fatalf("run %s sample %d: %+v", info.ID, i, res)
			}
		}
	}
	if n != results.Copied {
		t.Errorf("%d results decode in the new file, %d were reported copied", n, results.Copied)
	}
}

// A database found sound and recorded so (its walk skipped after), then
// damaged in place with its modification time put back as it was, as a
// disk's bit rot or a careless restore leaves it: the next run must find
// the damage before it writes, not write into the file and record it
// sound again.
func TestDamageInPlaceWithMtimeRestored(t *testing.T) {
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, p string)
	}{
		{"a leaf page zeroed", func(t *testing.T, p string) {
			ids := usedLeafPages(t, p)
			writeAt(t, p, int64(ids[len(ids)/2])*4096, make([]byte, 4096))
		}},
		{"random bytes inside a leaf page", func(t *testing.T, p string) {
			ids := usedLeafPages(t, p)
			noise := make([]byte, 2048)
			rand.New(rand.NewSource(13)).Read(noise)
			writeAt(t, p, int64(ids[len(ids)/3])*4096+64, noise)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := writeCorpus(t)
			env := cleanEnv(t)
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
			if r := runBin(t, env, "runs", "--db", p); r.code != exitOK {
				t.Fatalf("runs on the sound file: exit %d\n%s", r.code, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), ".ragscope.db.verified")); err != nil {
				t.Fatalf("no record of the sound file: %v", err)
			}
			c.damage(t, p)
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(p)
			r := runBin(t, env, "run", "--headless", "--offline", "--db", p, repoFile("testdata/demo.jsonl"))
			if r.code != exitFatal || !strings.Contains(r.stderr, "is damaged") {
				t.Errorf("run on the damaged file: exit %d, want %d saying it is damaged\n%s", r.code, exitFatal, r.stderr)
			}
			if after, _ := os.ReadFile(p); !bytes.Equal(before, after) {
				t.Error("the run wrote into the damaged file")
			}
		})
	}
}

// checkOf is what a check counted of one kind.
func checkOf(rep cache.Report, kind string) cache.KindCheck {
	for _, k := range rep.Kinds {
		if k.Kind == kind {
			return k
		}
	}
	return cache.KindCheck{Kind: kind}
}

// salvagedOf is what a salvage counted of one kind.
func salvagedOf(rep cache.SalvageReport, kind string) cache.SalvageCount {
	for _, k := range rep.Kinds {
		if k.Kind == kind {
			return k
		}
	}
	return cache.SalvageCount{Kind: kind}
}
