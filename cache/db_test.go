package cache

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/xdg/cache")
	if got, err := DefaultPath(); err != nil || got != "/xdg/cache/ragscope/ragscope.db" {
		t.Errorf("with XDG_CACHE_HOME: %q, %v", got, err)
	}
	t.Setenv("XDG_CACHE_HOME", "relative/dir")
	if _, err := DefaultPath(); err == nil || !strings.Contains(err.Error(), "--db") {
		t.Errorf("relative XDG_CACHE_HOME: err = %v, want an error suggesting --db", err)
	}
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "/home/analyst")
	if got, err := DefaultPath(); err != nil || got != "/home/analyst/.cache/ragscope/ragscope.db" {
		t.Errorf("without XDG_CACHE_HOME: %q, %v", got, err)
	}
}

// bbolt waits forever for a held lock; we must give up within about a
// second with a message that names the file and the way out.
func TestSecondOpenFailsFast(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ragscope.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	for _, opt := range []Options{{}, {ReadOnly: true}} {
		start := time.Now()
		_, err := Open(path, opt)
		elapsed := time.Since(start)
		if err == nil {
			t.Fatalf("read-only=%v: second open succeeded", opt.ReadOnly)
		}
		if !errors.Is(err, ErrInUse) {
			t.Errorf("read-only=%v: err = %v, want ErrInUse", opt.ReadOnly, err)
		}
		want := fmt.Sprintf("database %s is in use by another ragscope process (waited 1s); wait for it to finish or pass --db FILE to use another database", path)
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q\nwant it to contain %q", err, want)
		}
		if elapsed < 900*time.Millisecond || elapsed > 2500*time.Millisecond {
			t.Errorf("read-only=%v: gave up after %s, want about 1s", opt.ReadOnly, elapsed)
		}
	}

	// Once the holder closes, the file opens.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2, err := Open(path, Options{Timeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	db2.Close()
}

func TestOpenRejectsBadFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noise := make([]byte, 32<<10)
	rand.New(rand.NewSource(1)).Read(noise)

	foreign := filepath.Join(dir, "foreign.db")
	fdb, err := bolt.Open(foreign, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = fdb.Update(func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("widgets")); return err })
	fdb.Close()

	newer := filepath.Join(dir, "newer.db")
	ndb, err := Open(newer, Options{})
	if err != nil {
		t.Fatal(err)
	}
	_ = ndb.bolt.Update(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketMeta).Put([]byte(metaVersionKey), []byte{99})
	})
	ndb.Close()

	cases := []struct {
		name string
		path string
		opt  Options
		want string
	}{
		{"text file", write("notes.db", []byte("question,answer\nhello,world\n")), Options{}, "is not a ragscope database or is corrupt"},
		{"random bytes", write("noise.db", noise), Options{}, "is not a ragscope database or is corrupt"},
		{"zeros", write("zeros.db", make([]byte, 32<<10)), Options{}, "is not a ragscope database or is corrupt"},
		{"another program's bbolt file", foreign, Options{}, "is a bbolt file of another program"},
		{"newer layout", newer, Options{}, "was written by a newer ragscope"},
		{"read-only, missing", filepath.Join(dir, "missing.db"), Options{ReadOnly: true}, "does not exist yet"},
		{"a directory", dir, Options{}, "cannot open database"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db, err := Open(tc.path, tc.opt)
			if err == nil {
				db.Close()
				t.Fatal("opened")
			}
			if !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %q, want it to name %s and say %q", err, tc.path, tc.want)
			}
		})
	}
	// A refused foreign file is left untouched.
	fdb, err = bolt.Open(foreign, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer fdb.Close()
	_ = fdb.View(func(tx *bolt.Tx) error {
		if tx.Bucket(bucketMeta) != nil {
			t.Error("Open wrote into another program's database")
		}
		return nil
	})
}

func TestReadOnlyReplaysButCannotWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ragscope.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	inner := &fakeInner{}
	if _, err := db.Client(inner, ReadWrite).Chat(ctx, chatReq("m", 0)); err != nil {
		t.Fatal(err)
	}
	db.Close()

	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	c := ro.Client(inner, ReadWrite) // forced to replay
	if resp, err := c.Chat(ctx, chatReq("m", 0)); err != nil || !resp.Cached {
		t.Errorf("hit on read-only db: %+v, %v", resp, err)
	}
	if _, err := c.Chat(ctx, chatReq("m", 1)); !errors.Is(err, eval.ErrCacheMiss) {
		t.Errorf("miss on read-only db: %v, want ErrCacheMiss", err)
	}
	if err := ro.PutRun(report.RunInfo{ID: "r"}); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Errorf("PutRun on read-only db: %v", err)
	}
	if inner.chats.Load() != 1 {
		t.Errorf("inner called %d times", inner.chats.Load())
	}
}

func TestClosedDB(t *testing.T) {
	db := openTemp(t)
	db.Close()
	if err := db.PutRun(report.RunInfo{ID: "r"}); !errors.Is(err, ErrClosed) {
		t.Errorf("PutRun after Close: %v, want ErrClosed", err)
	}
	if _, err := db.Client(&fakeInner{}, ReadWrite).Chat(context.Background(), chatReq("m", 0)); err == nil {
		t.Error("Chat after Close succeeded")
	}
}

// Every acknowledged write survives kill -9: a child process stores calls
// and results and reports each one as it returns; the parent kills it
// mid-stream and finds every reported write in the reopened file.
func TestAcknowledgedWritesSurviveSIGKILL(t *testing.T) {
	if os.Getenv("RAGSCOPE_CACHE_CRASH_CHILD") != "" {
		crashChild()
		return
	}
	path := filepath.Join(t.TempDir(), "ragscope.db")
	cmd := exec.Command(os.Args[0], "-test.run=^TestAcknowledgedWritesSurviveSIGKILL$")
	cmd.Env = append(os.Environ(), "RAGSCOPE_CACHE_CRASH_CHILD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var i int
		if _, err := fmt.Sscanf(sc.Text(), "acked %d", &i); err == nil {
			acked = append(acked, i)
		}
		if len(acked) == 40 {
			_ = cmd.Process.Signal(syscall.SIGKILL)
			break
		}
	}
	_ = cmd.Wait()
	if len(acked) < 40 {
		t.Fatalf("child acknowledged only %d writes before exiting", len(acked))
	}

	db, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer db.Close()
	inner := &fakeInner{}
	c := db.Client(inner, CacheOnly)
	results, err := db.Results("crash")
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range acked {
		if _, err := c.Chat(context.Background(), chatReq("crash", i)); err != nil {
			t.Errorf("acknowledged call %d lost: %v", i, err)
		}
		if results[i] == nil {
			t.Errorf("acknowledged result %d lost", i)
		}
	}
}

func crashChild() {
	path := os.Getenv("RAGSCOPE_CACHE_CRASH_CHILD")
	db, err := Open(path, Options{})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	if err := db.PutRun(report.RunInfo{ID: "crash"}); err != nil {
		fmt.Println("putrun:", err)
		os.Exit(1)
	}
	c := db.Client(&fakeInner{}, ReadWrite)
	for i := 0; ; i++ {
		if _, err := c.Chat(context.Background(), chatReq("crash", i)); err != nil {
			fmt.Println("chat:", err)
			os.Exit(1)
		}
		if err := db.PutResult("crash", sampleResult(i)); err != nil {
			fmt.Println("result:", err)
			os.Exit(1)
		}
		fmt.Printf("acked %d\n", i)
	}
}

// A write that fails or panics gets its own error; the writes committed
// with it in the same group are kept, and the writer keeps serving.
func TestWriterIsolatesFailures(t *testing.T) {
	db := openTemp(t)
	const n = 30
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			errs[i] = db.update(func(tx *bolt.Tx) error {
				switch i % 3 {
				case 1:
					return fmt.Errorf("write %d refused", i)
				case 2:
					panic(fmt.Sprintf("write %d exploded", i))
				}
				return tx.Bucket(bucketRuns).Put([]byte(fmt.Sprintf("r%02d", i)), []byte(`{}`))
			})
		}(i)
	}
	wg.Wait()
	for i, err := range errs {
		var want string
		switch i % 3 {
		case 1:
			want = fmt.Sprintf("write %d refused", i)
		case 2:
			want = fmt.Sprintf("database write panicked: write %d exploded", i)
		}
		if (want == "") != (err == nil) || (err != nil && err.Error() != want) {
			t.Errorf("write %d: err = %v, want %q", i, err, want)
		}
	}
	st, err := db.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Of(KindRuns).Entries; got != n/3 {
		t.Errorf("%d good writes committed, want %d", got, n/3)
	}
	if err := db.PutRun(report.RunInfo{ID: "after"}); err != nil {
		t.Errorf("writer dead after failures: %v", err)
	}
}
