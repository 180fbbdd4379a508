package cache

import (
	"runtime"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
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
	db.res.above, db.res.everyBytes = 4<<20, 1<<20
	id, err := db.NewRunID()
	if err != nil {
		t.Fatal(err)
	}
	const n, size = 320, 64 << 10
	if err := db.PutRun(eval.RunInfo{ID: id, Samples: n}); err != nil {
		t.Fatal(err)
	}
	peak := int64(0)
	watch := func() {
		if r := fileResident() - db.res.base; r > peak {
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
	if limit := db.res.above + 8<<20; peak > limit {
		t.Fatalf("the database's pages reached %d MB of the resident set, bound %d MB", peak>>20, limit>>20)
	}
	t.Logf("peak %d MB of the file resident", peak>>20)
}
