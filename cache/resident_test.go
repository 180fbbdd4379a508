package cache

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/cache/internal/boltfile"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// Storing a run and paging through it leave no more of the database file
// resident than the trim bound (and a check's worth more), however large
// the run: 20 MB written and read back here, with the bound lowered to
// 4 MB so the test stays quick under -race.
func TestTheMappingDoesNotGrowTheResidentSet(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the resident set is trimmed on Linux only")
	}
	db := openTemp(t)
	db.res.Above, db.res.EveryBytes = 4<<20, 1<<20
	id, err := db.NewRunID()
	if err != nil {
		t.Fatal(err)
	}
	const n, size = 320, 64 << 10
	if err := db.PutRun(report.RunInfo{ID: id, Samples: n}); err != nil {
		t.Fatal(err)
	}
	peak := int64(0)
	watch := func() {
		if r := boltfile.FileResident() - db.res.Base; r > peak {
			peak = r
		}
	}
	answer := strings.Repeat("答", size/3)
	for from := 0; from < n; from += 16 {
		batch := make([]*eval.Result, 0, 16)
		for i := from; i < from+16; i++ {
			r := sampleResult(i)
			r.Answer = answer
			batch = append(batch, r)
		}
		if err := db.PutResults(id, batch); err != nil {
			t.Fatal(err)
		}
		watch()
	}
	read := 0
	for from := 0; from >= 0; {
		_, page, next, err := db.RunPage(id, from, 16)
		if err != nil {
			t.Fatal(err)
		}
		read += len(page)
		watch()
		from = next
	}
	if read != n {
		t.Fatalf("read %d of %d results", read, n)
	}
	// The bound plus what can be touched between two checks (a commit of
	// 16 results is 1 MB; a check comes every 16 commits or 1 MB read).
	if limit := db.res.Above + 8<<20; peak > limit {
		t.Fatalf("the database's pages reached %d MB of the resident set, bound %d MB", peak>>20, limit>>20)
	}
	t.Logf("peak %d MB of the file resident", peak>>20)
}

// A run on a warm cache reads a stored reply for nearly every call; those
// reads are trimmed like a report's (a warm 20,000-record watch peaked at
// 180 MiB before, 58 MiB after).
func TestLookupsDoNotGrowTheResidentSet(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the resident set is trimmed on Linux only")
	}
	path := filepath.Join(t.TempDir(), "warm.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n, size = 320, 64 << 10
	reply := strings.Repeat("答", size/3)
	var keys []string
	for i := 0; i < n; i++ {
		req := chatReq(fmt.Sprintf("model-%d", i), 0)
		keys = append(keys, req.Key())
		if err := db.PutChat(req.Key(), req, eval.ChatResponse{Choices: []string{reply}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	// Opened again, the file's pages are in the page cache but not in
	// this mapping: each lookup faults its pages in.
	if db, err = Open(path, Options{ReadOnly: true}); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.res.Above, db.res.EveryBytes = 4<<20, 1<<20
	peak := int64(0)
	for _, k := range keys {
		if _, ok, err := db.LookupChat(k); err != nil || !ok {
			t.Fatalf("lookup: %v %v", ok, err)
		}
		if r := boltfile.FileResident() - db.res.Base; r > peak {
			peak = r
		}
	}
	if limit := db.res.Above + 4<<20; peak > limit {
		t.Fatalf("lookups of %d MB of replies held %d MB of the file resident, bound %d MB", n*size>>20, peak>>20, limit>>20)
	}
	t.Logf("peak %d MB of the file resident over %d MB of replies", peak>>20, n*size>>20)
}
