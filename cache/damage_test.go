package cache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/cache/internal/boltfile"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// ne is the byte order of bbolt's pages.
var ne = binary.NativeEndian

// corpus is what makeCorpus wrote.
type corpus struct {
	runs, results, chats, embeds int
	ids                          []string
}

// makeCorpus writes a database the way runs fill one: each run's record,
// then per sample a judge call, an embedding and the sample's result, each
// its own commit, then the stamped record. bbolt copies a page on every
// write, so the file also holds many freed older copies of pages, as a real
// one does. Commits are not fsync'd (the test needs the file, not the
// durability).
func makeCorpus(t testing.TB, path string, runs, samples int) corpus {
	t.Helper()
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.bolt.NoSync = true
	c := db.Client(&fakeInner{}, ReadWrite)
	ctx := context.Background()
	var ids []string
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for r := 0; r < runs; r++ {
		started := base.Add(time.Duration(r) * time.Minute)
		info := report.RunInfo{ID: fmt.Sprintf("%s-%04x", started.Format("20060102-150405"), r), Dataset: "testdata/demo.jsonl",
			StartedAt: started, Samples: samples, Metrics: eval.AllMetrics}
		if err := db.PutRun(info); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, info.ID)
		for i := 0; i < samples; i++ {
			if _, err := c.Chat(ctx, chatReq(info.ID, i)); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Embed(ctx, eval.EmbedRequest{Endpoint: "e", Model: "m", Texts: []string{fmt.Sprintf("%s text %d", info.ID, i)}}); err != nil {
				t.Fatal(err)
			}
			res := sampleResult(i)
			res.Answer = strings.Repeat("转为一般纳税人后，纳税人识别号不变。", 3+i%5)
			if err := db.PutResult(info.ID, res); err != nil {
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
	return corpus{runs: runs, results: runs * samples, chats: runs * samples, embeds: runs * samples, ids: ids}
}

// byKind is the number of entries written of each kind.
func (c corpus) byKind() map[string]int {
	return map[string]int{KindRuns: c.runs, KindResults: c.results, KindChat: c.chats, KindEmbedding: c.embeds}
}

var (
	corpusOnce  sync.Once
	corpusBytes []byte
	corpusWant  corpus
)

// sharedCorpus is a 4 MiB database with 50 finished runs of 20 samples (its pages reach 3.7 MB),
// made once per test binary and kept in memory; tests damage copies of it.
func sharedCorpus(t *testing.T) ([]byte, corpus) {
	t.Helper()
	corpusOnce.Do(func() {
		p := filepath.Join(t.TempDir(), "corpus.db")
		want := makeCorpus(t, p, 50, 20)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		corpusBytes, corpusWant = b, want
	})
	if corpusBytes == nil {
		t.Fatal("no corpus")
	}
	return corpusBytes, corpusWant
}

// corpusCopy writes the corpus to a new file.
func corpusCopy(t *testing.T) string {
	t.Helper()
	b, _ := sharedCorpus(t)
	p := filepath.Join(t.TempDir(), "ragscope.db")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// treePages lists the pages a healthy file's tree uses, with the bucket of
// each ("" for the root).
func treePages(t *testing.T, path string) map[uint64]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	bf := boltfile.Read(data)
	if bf.Cur < 0 {
		t.Fatal("no meta")
	}
	out := map[uint64]string{}
	w := boltfile.NewWalker(bf)
	w.OnPage = func(bucket string, id uint64) { out[id] = bucket }
	w.Walk()
	if w.Problems.N != 0 {
		t.Fatalf("healthy file has problems: %v", w.Problems.Texts())
	}
	return out
}

// survivingEntries counts, per top-level bucket, the entries on the
// corpus's leaf pages that lie wholly in its first cut bytes.
func survivingEntries(t *testing.T, cut int) map[string]int {
	t.Helper()
	p := corpusCopy(t)
	out := map[string]int{}
	for id, bucket := range treePages(t, p) {
		h := corpusBytes[id*4096:]
		flags, count, overflow := ne.Uint16(h[8:]), int(ne.Uint16(h[10:])), uint64(ne.Uint32(h[12:]))
		if flags&boltfile.FlagLeaf == 0 || (id+overflow+1)*4096 > uint64(cut) || strings.Contains(bucket, "/") || bucket == "" {
			continue
		}
		out[bucket] += count
	}
	return out
}

// damage kinds, applied to a copy of the corpus.
type damageCase struct {
	name    string
	make    func(t *testing.T, path string)
	damaged bool // a ragscope database that is damaged (not: not a database)
}

// pageOf is the nth (0 to 1) of the bucket's leaf pages in file order: a
// leaf, so that damaging it loses the entries of one page, not a branch's
// whole subtree (which of the two the middle page was depended on where
// bbolt placed the pages, and once cost 86 of 1000 results).
func pageOf(t *testing.T, path, bucket string, nth float64) uint64 {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var ids []uint64
	for id, b := range treePages(t, path) {
		if b == bucket && ne.Uint16(data[id*4096+8:])&boltfile.FlagLeaf != 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		t.Fatalf("no pages of bucket %s", bucket)
	}
	slices.Sort(ids)
	return ids[int(nth*float64(len(ids)-1))]
}

func overwrite(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

func damageCases() []damageCase {
	return []damageCase{
		{"truncated to half", func(t *testing.T, p string) {
			fi, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(p, fi.Size()/2); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"one data page zeroed", func(t *testing.T, p string) {
			id := pageOf(t, p, "results", 0.5)
			overwrite(t, p, int64(id)*4096, make([]byte, 4096))
		}, true},
		{"random bytes in the middle", func(t *testing.T, p string) {
			// Two pages' worth from the first page in use past the middle
			// of the file (a free page there would be harmless), where
			// neither of the two is a branch page (whose whole subtree
			// would be lost, as many entries as bbolt happened to put there).
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			mid := uint64(len(data) / 2 / 4096)
			pages := treePages(t, p)
			branch := func(pid uint64) bool {
				_, inTree := pages[pid]
				return inTree && ne.Uint16(data[pid*4096+8:])&boltfile.FlagBranch != 0
			}
			var id uint64
			for pid := range pages {
				if pid >= mid && (id == 0 || pid < id) && !branch(pid) && !branch(pid+1) {
					id = pid
				}
			}
			if id == 0 {
				id = pageOf(t, p, "results", 0.6)
			}
			noise := make([]byte, 2*4096)
			rand.New(rand.NewSource(7)).Read(noise)
			overwrite(t, p, int64(id)*4096, noise)
		}, true},
		{"0-byte file", func(t *testing.T, p string) {
			if err := os.WriteFile(p, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			// An empty file younger than emptyGrace may be a database
			// being created: Open would look again for a second.
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(p, old, old); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"a file of another program", func(t *testing.T, p string) {
			b := append([]byte("SQLite format 3\x00"), make([]byte, 8192)...)
			rand.New(rand.NewSource(3)).Read(b[100:])
			if err := os.WriteFile(p, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}, false},
	}
}

// damagedCopy is a copy of the corpus damaged by dc.
func damagedCopy(t *testing.T, dc damageCase) string {
	t.Helper()
	p := corpusCopy(t)
	dc.make(t, p)
	return p
}

func TestCorpusIsFourMiB(t *testing.T) {
	_, want := sharedCorpus(t)
	p := corpusCopy(t)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() != 4<<20 {
		t.Errorf("corpus is %d bytes, want 4 MiB", fi.Size())
	}
	rep, err := Check(p)
	if err != nil || !rep.OK() || !rep.BoltChecked {
		t.Fatalf("healthy corpus: %v, %+v", err, rep)
	}
	for kind, n := range want.byKind() {
		if got := rep.Of(kind); got.Readable != n || got.Unreadable != 0 {
			t.Errorf("%s: %+v, want %d readable", kind, got, n)
		}
	}
}

// A damaged file is refused by Open with a message naming the file and
// the way out, in every mode, and never panics or faults.
func TestOpenRefusesDamagedFiles(t *testing.T) {
	for _, dc := range damageCases() {
		t.Run(dc.name, func(t *testing.T) {
			p := damagedCopy(t, dc)
			before := fileHash(t, p)
			for _, ro := range []bool{true, false} {
				db, err := Open(p, Options{ReadOnly: ro})
				if err == nil {
					db.Close()
					t.Fatalf("read-only=%v: opened", ro)
				}
				msg := err.Error()
				if !strings.Contains(msg, p) {
					t.Errorf("read-only=%v: %q does not name the file", ro, msg)
				}
				if dc.damaged {
					if !errors.Is(err, ErrDamaged) {
						t.Errorf("read-only=%v: %v, want ErrDamaged", ro, err)
					}
					for _, want := range []string{"ragscope db check --db " + p, "ragscope db salvage --db " + p + " --out", "move " + p + " aside"} {
						if !strings.Contains(msg, want) {
							t.Errorf("read-only=%v: %q lacks %q", ro, msg, want)
						}
					}
				} else if !strings.Contains(msg, "not a ragscope database") || !strings.Contains(msg, "--db") {
					t.Errorf("read-only=%v: %q", ro, msg)
				}
			}
			if fileHash(t, p) != before {
				t.Error("a refused file was modified")
			}
		})
	}
	t.Run("empty file message", func(t *testing.T) {
		p := damagedCopy(t, damageCases()[3])
		_, err := Open(p, Options{})
		want := "empty database file " + p + " (0 bytes): not a ragscope database; remove it or pass another --db FILE"
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want %q", err, want)
		}
	})
}

func fileHash(t *testing.T, p string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// The file is damaged after it was opened (truncated under a holder): every
// read and write returns an error that says so instead of faulting.
func TestDamageUnderAnOpenDatabase(t *testing.T) {
	for _, ro := range []bool{true, false} {
		t.Run(fmt.Sprintf("read-only=%v", ro), func(t *testing.T) {
			p := corpusCopy(t)
			db, err := Open(p, Options{ReadOnly: ro})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			runs, err := db.Runs()
			if err != nil || len(runs) == 0 {
				t.Fatal(runs, err)
			}
			// Everything but the meta pages is gone.
			if err := os.Truncate(p, 2*4096); err != nil {
				t.Fatal(err)
			}
			calls := map[string]func() error{
				"Runs":  func() error { _, err := db.Runs(); return err },
				"Run":   func() error { _, _, err := db.Run(LatestRun); return err },
				"Stats": func() error { _, err := db.Stats(); return err },
				"Call":  func() error { _, err := db.Call(chatReq(runs[0].ID, 0).Key()); return err },
				"LookupChat": func() error {
					_, _, err := db.LookupChat(chatReq(runs[0].ID, 0).Key())
					return err
				},
				"LookupEmbeddings": func() error {
					_, err := db.LookupEmbeddings([]string{eval.EmbedKey("e", "m", 0, runs[0].ID+" text 0")})
					return err
				},
				"Export":  func() error { _, err := db.Export(&bytes.Buffer{}); return err },
				"Results": func() error { _, err := db.Results(runs[0].ID); return err },
			}
			if !ro {
				calls["PutRun"] = func() error { return db.PutRun(report.RunInfo{ID: "new"}) }
				calls["PutResult"] = func() error { return db.PutResult(runs[0].ID, sampleResult(99)) }
				calls["PutChat"] = func() error {
					return db.PutChat(chatReq("x", 1).Key(), chatReq("x", 1), eval.ChatResponse{Choices: []string{"{}"}})
				}
				calls["Watch"] = func() error {
					_ = db.PutResult(runs[0].ID, sampleResult(3))
					_, err := db.LiveUpdates(context.Background(), runs[0].ID, -1, 0)
					return err
				}
			}
			for name, call := range calls {
				err := call()
				if name == "Watch" {
					continue // nothing to read: the write before it failed
				}
				if err == nil {
					t.Errorf("%s succeeded on a truncated file", name)
					continue
				}
				if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "db salvage") || !strings.Contains(err.Error(), p) {
					t.Errorf("%s: %v, want a damage error naming the file and db salvage", name, err)
				}
			}
		})
	}
}

// Damage inside a value (the pages are sound) is found when the value is
// read, and by Check.
func TestDamagedValue(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ragscope.db")
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	info := report.RunInfo{ID: "20260301-090000-aaaa", Samples: 2}
	if err := db.PutRun(info); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		r := sampleResult(i)
		r.Answer = "MARKER-" + fmt.Sprint(i)
		if err := db.PutResult(info.ID, r); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	b, _ := os.ReadFile(p)
	i := bytes.Index(b, []byte(`"answer":"MARKER-1"`))
	if i < 0 {
		t.Fatal("marker not found")
	}
	overwrite(t, p, int64(i), []byte(`"answer":{MARKER-1"`))

	db, err = Open(p, Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("sound pages: %v", err)
	}
	_, _, err = db.Run(info.ID)
	db.Close()
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "sample 1") || !strings.Contains(err.Error(), "db salvage") {
		t.Errorf("Run: %v", err)
	}
	rep, err := Check(p)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() || rep.Of(KindResults) != (KindCheck{Kind: KindResults, Readable: 1, Unreadable: 1}) || !rep.BoltChecked {
		t.Errorf("check: %+v", rep)
	}
	out := filepath.Join(t.TempDir(), "new.db")
	srep, err := Salvage(p, out)
	if err != nil {
		t.Fatal(err)
	}
	if srep.Method != SalvageTree || srep.Of(KindResults) != (SalvageCount{Kind: KindResults, Copied: 1, Lost: 1}) {
		t.Errorf("salvage: %+v", srep)
	}
}

func TestCheck(t *testing.T) {
	_, want := sharedCorpus(t)
	wantProblem := map[string]string{
		"truncated to half":          "the file is truncated",
		"one data page zeroed":       "identifies itself as 0",
		"random bytes in the middle": "(overwritten or zeroed)",
		"0-byte file":                "the file is empty",
		"a file of another program":  "not a bbolt database",
	}
	for _, dc := range damageCases() {
		t.Run(dc.name, func(t *testing.T) {
			p := damagedCopy(t, dc)
			before := fileHash(t, p)
			rep, err := Check(p)
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() || rep.ProblemCount == 0 || len(rep.Problems) == 0 {
				t.Fatalf("damage not reported: %+v", rep)
			}
			if !strings.Contains(strings.Join(rep.Problems, "\n"), wantProblem[dc.name]) {
				t.Errorf("problems %q lack %q", rep.Problems, wantProblem[dc.name])
			}
			if rep.NotDatabase == dc.damaged {
				t.Errorf("NotDatabase = %v", rep.NotDatabase)
			}
			if dc.damaged {
				if rep.BoltChecked {
					t.Error("bbolt's check ran on bad pages")
				}
				if len(rep.Salvageable) == 0 {
					t.Error("no salvage estimate")
				}
			}
			if dc.name == "one data page zeroed" {
				// Only the zeroed page's results are out of reach.
				if got := rep.Of(KindResults).Readable; got < want.results-40 || got >= want.results {
					t.Errorf("%d results readable of %d", got, want.results)
				}
				if got := rep.Of(KindRuns).Readable; got != want.runs {
					t.Errorf("%d runs readable of %d", got, want.runs)
				}
			}
			if fileHash(t, p) != before {
				t.Error("Check modified the file")
			}
		})
	}
	t.Run("another program's bbolt file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "widgets.db")
		fdb, err := bolt.Open(p, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = fdb.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucket([]byte("widgets"))
			if err != nil {
				return err
			}
			return b.Put([]byte("k"), []byte("v"))
		})
		fdb.Close()
		rep, err := Check(p)
		if err != nil || rep.OK() || !rep.NotDatabase || !strings.Contains(strings.Join(rep.Problems, " "), "another program") {
			t.Errorf("%v %+v", err, rep)
		}
		if _, err := Salvage(p, p+".new"); err == nil || !strings.Contains(err.Error(), "not a ragscope database") {
			t.Errorf("salvage of another program's file: %v", err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := Check(filepath.Join(t.TempDir(), "nope.db")); err == nil || !strings.Contains(err.Error(), "does not exist") {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("held by a writer", func(t *testing.T) {
		db := openTemp(t)
		if _, err := Check(db.Path()); !errors.Is(err, ErrInUse) {
			t.Errorf("err = %v, want ErrInUse", err)
		}
	})
}

func TestSalvage(t *testing.T) {
	_, want := sharedCorpus(t)
	// Measured on the corpus (50 runs x 20 samples, 4 MiB; bbolt places
	// pages differently on every run, so over 12 corpora): a zeroed page
	// lost 0-4 results; the random bytes (two pages) 0-4 results, or 0-8
	// chat entries, or up to 32 embeddings (small entries: many to a
	// page). The bounds leave a margin. Truncation's loss depends on where
	// bbolt placed each bucket (one CI corpus kept only 145 of 1000
	// embeddings, another 428), so its bound is placement-aware: every
	// entry on a leaf page wholly inside the kept half comes back (over
	// 16 corpora salvage met it exactly, 1300-1430 entries in all).
	minimum := map[string]map[string]int{
		"truncated to half":          survivingEntries(t, len(corpusBytes)/2),
		"one data page zeroed":       {KindRuns: 50, KindResults: 990, KindChat: 990, KindEmbedding: 990},
		"random bytes in the middle": {KindRuns: 50, KindResults: 990, KindChat: 950, KindEmbedding: 950},
	}
	if kept := minimum["truncated to half"]; kept[KindResults]+kept[KindChat]+kept[KindEmbedding] < 500 {
		t.Fatalf("the corpus keeps only %v in its first half: the truncation case would test little", kept)
	}
	for _, dc := range damageCases() {
		if !dc.damaged {
			continue
		}
		t.Run(dc.name, func(t *testing.T) {
			p := damagedCopy(t, dc)
			before := fileHash(t, p)
			out := filepath.Join(t.TempDir(), "salvaged.db")
			rep, err := Salvage(p, out)
			if err != nil {
				t.Fatal(err)
			}
			if fileHash(t, p) != before {
				t.Error("Salvage modified its source")
			}
			t.Logf("method %s, %+v, %d stub runs, %d from the scan, %d bad pages; want at least %v", rep.Method, rep.Kinds, len(rep.StubRuns), rep.FromScan, rep.BadPages, minimum[dc.name])
			if rep.Method != SalvageTreeAndScan {
				t.Errorf("method %s", rep.Method)
			}
			totals := want.byKind()
			for kind, min := range minimum[dc.name] {
				c := rep.Of(kind)
				got := c.Copied
				if kind == KindRuns {
					got += len(rep.StubRuns)
				}
				if got < min || c.Copied > totals[kind] {
					t.Errorf("%s: %+v, want at least %d of %d", kind, c, min, totals[kind])
				}
			}
			if rep.Of(KindRuns).Lost != len(rep.StubRuns) {
				t.Errorf("runs lost %d, stubs %d", rep.Of(KindRuns).Lost, len(rep.StubRuns))
			}

			// The new file is sound, and everything in it reads.
			check, err := Check(out)
			if err != nil || !check.OK() || !check.BoltChecked {
				t.Fatalf("salvaged file: %v %+v", err, check)
			}
			db, err := Open(out, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			runs, err := db.Runs()
			if err != nil {
				t.Fatal(err)
			}
			if len(runs) != rep.Of(KindRuns).Copied+len(rep.StubRuns) {
				t.Errorf("%d runs in the new file, report says %d + %d stubs", len(runs), rep.Of(KindRuns).Copied, len(rep.StubRuns))
			}
			// Every result (all runs had finished) is copied or counted
			// lost, but those no trace is left of: a run's results after the
			// last one found when its record was lost (its stub counts
			// only up to that one), and every result of a run lost whole.
			perRun := want.results / want.runs
			untraceable := (want.runs - len(runs)) * perRun
			for _, r := range runs {
				if slices.Contains(rep.StubRuns, r.ID) {
					untraceable += perRun - r.Samples
				}
			}
			if r := rep.Of(KindResults); r.Copied+r.Lost+untraceable < want.results || r.Copied+r.Lost > want.results || untraceable > 0 && !r.AtLeast {
				t.Errorf("results %+v (and %d that left no trace) do not account for the %d written", r, untraceable, want.results)
			}
			results := 0
			for _, r := range runs {
				_, rs, err := db.Run(r.ID)
				if err != nil {
					t.Fatalf("run %s: %v", r.ID, err)
				}
				for i, res := range rs {
					if res == nil {
						continue
					}
					results++
					if res.Index != i || res.Faithfulness == nil || !strings.HasPrefix(res.Answer, "转为一般纳税人后") {
						t.Fatalf("run %s sample %d: %+v", r.ID, i, res)
					}
				}
			}
			if results != rep.Of(KindResults).Copied {
				t.Errorf("%d results in the new file, report says %d", results, rep.Of(KindResults).Copied)
			}
			// Replayed cache entries answer their requests.
			c := db.Client(&fakeInner{}, CacheOnly)
			hits := 0
			for _, id := range want.ids {
				for i := 0; i < 20; i++ {
					if _, err := c.Chat(context.Background(), chatReq(id, i)); err == nil {
						hits++
					}
				}
			}
			if hits != rep.Of(KindChat).Copied {
				t.Errorf("%d chat hits, %d chat entries copied", hits, rep.Of(KindChat).Copied)
			}
		})
	}
	t.Run("refuses an existing destination", func(t *testing.T) {
		p := damagedCopy(t, damageCases()[0])
		out := filepath.Join(t.TempDir(), "exists.db")
		if err := os.WriteFile(out, []byte("keep me"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Salvage(p, out); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Errorf("err = %v", err)
		}
		if b, _ := os.ReadFile(out); string(b) != "keep me" {
			t.Error("existing destination overwritten")
		}
		if _, err := Salvage(p, p); err == nil {
			t.Error("salvaged onto its source")
		}
	})
	t.Run("nothing to salvage", func(t *testing.T) {
		for _, dc := range damageCases()[3:] {
			p := damagedCopy(t, dc)
			out := p + ".new"
			if _, err := Salvage(p, out); err == nil || !strings.Contains(err.Error(), "nothing to salvage") {
				t.Errorf("%s: err = %v", dc.name, err)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s: a file was written", dc.name)
			}
		}
	})
	t.Run("both meta pages zeroed", func(t *testing.T) {
		p := corpusCopy(t)
		overwrite(t, p, 0, make([]byte, 2*4096))
		_, err := Open(p, Options{ReadOnly: true})
		if !errors.Is(err, ErrDamaged) {
			t.Errorf("open: %v, want ErrDamaged", err)
		}
		rep, err := Salvage(p, p+".new")
		if err != nil {
			t.Fatal(err)
		}
		if rep.Method != SalvageScan || rep.Of(KindResults).Copied < want.results*9/10 {
			t.Errorf("%+v", rep)
		}
	})
}

// Concurrent first opens of a new file: each either creates it or waits
// for its creator; none sees the empty file of a creation under way as
// "not a database".
func TestConcurrentCreation(t *testing.T) {
	for round := 0; round < 3; round++ {
		p := filepath.Join(t.TempDir(), "new.db")
		var wg sync.WaitGroup
		errs := make([]error, 4)
		for i := range errs {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				db, err := Open(p, Options{Timeout: 10 * time.Second})
				if err == nil {
					err = db.PutRun(report.RunInfo{ID: fmt.Sprint("r", i)})
					db.Close()
				}
				errs[i] = err
			}(i)
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("round %d, opener %d: %v", round, i, err)
			}
		}
	}
}
