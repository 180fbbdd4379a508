package holder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
)

// Every method of the store answers through the socket what the database
// answers directly, errors included (with their text).
func TestStoreThroughSocket(t *testing.T) {
	db := newDB(t)
	srv := serveDB(t, db, ServeOptions{Version: "test", Role: "run"})
	cl := dial(t, srv.Socket())
	ctx := context.Background()

	abs, _ := filepath.Abs(db.Path())
	if cl.Path() != abs || cl.ReadOnly() {
		t.Fatalf("Path %q ReadOnly %v, want %q false", cl.Path(), cl.ReadOnly(), abs)
	}
	before, err := cl.LiveUpdates(ctx, "run-a1", -1, 0)
	if err != nil {
		t.Fatal(err)
	}

	// Writes, through the socket.
	id, err := cl.NewRunID()
	if err != nil || !regexp.MustCompile(`^\d{8}-\d{6}-[0-9a-f]{4}$`).MatchString(id) {
		t.Fatalf("NewRunID = %q, %v", id, err)
	}
	for _, info := range []report.RunInfo{runInfo("run-a1", 5), runInfo("run-b2", 2)} {
		if err := cl.PutRun(info); err != nil {
			t.Fatal(err)
		}
	}
	if err := cl.PutResult("run-a1", result(0)); err != nil {
		t.Fatal(err)
	}
	if err := cl.PutResults("run-a1", []*eval.Result{result(1), nil, result(3)}); err != nil {
		t.Fatal(err)
	}
	seed := 7
	req := eval.ChatRequest{
		Endpoint: "api.example.com/v1", Model: "m", Temperature: 0.1, Seed: &seed, N: 2,
		Messages:       []eval.Message{{Role: "user", Content: "<hi> & 'x' \u2028"}},
		ResponseFormat: eval.ResponseFormat{Type: "json_schema", Name: "t", Schema: json.RawMessage(`{"type": "object"}`)},
		Task:           "faithfulness_statements", Sample: 3,
	}
	key := req.Key()
	resp := eval.ChatResponse{Choices: []string{"a", "b"}, FinishReasons: []string{"stop", "stop"}, Usage: eval.Usage{PromptTokens: 9}, LatencyMS: 12}
	if err := cl.PutChat(key, req, resp); err != nil {
		t.Fatal(err)
	}
	ereq := eval.EmbedRequest{Endpoint: "e", Model: "em", Dimensions: 4, Texts: []string{"x", "y", "z"}}
	if err := cl.PutEmbeddings(ereq, []string{"x", "y"}, [][]float64{{1, 0.1, -2, 3e-7}, {0, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	ekeys := []string{eval.EmbedKey("e", "em", 4, "x"), eval.EmbedKey("e", "em", 4, "y"), eval.EmbedKey("e", "em", 4, "z")}

	// What was written through the socket is what was given.
	_, rs, err := db.Run("run-a1")
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "results written through the socket", []*eval.Result{result(0), result(1), nil, result(3), nil}, rs)
	if e, err := db.Call(key); err != nil || e == nil || e.Task != req.Task {
		t.Fatalf("the chat entry lost its task: %+v, %v", e, err)
	}

	type pair struct{ A, B any }
	cases := []struct {
		name string
		do   func(st cache.Store) (any, error)
	}{
		{"Runs", func(st cache.Store) (any, error) { return st.Runs() }},
		{"Run by id", func(st cache.Store) (any, error) { i, r, err := st.Run("run-a1"); return pair{i, r}, err }},
		{"Run latest", func(st cache.Store) (any, error) { i, r, err := st.Run(cache.LatestRun); return pair{i, r}, err }},
		{"Run by prefix", func(st cache.Store) (any, error) { i, r, err := st.Run("run-b"); return pair{i, r}, err }},
		{"Run ambiguous", func(st cache.Store) (any, error) { i, r, err := st.Run("run-"); return pair{i, r}, err }},
		{"Run unknown", func(st cache.Store) (any, error) { i, r, err := st.Run("nope"); return pair{i, r}, err }},
		{"Run empty ref", func(st cache.Store) (any, error) { i, r, err := st.Run(""); return pair{i, r}, err }},
		{"LiveUpdates since before the writes", func(st cache.Store) (any, error) { return st.LiveUpdates(ctx, "run-a1", before.Seq, time.Second) }},
		{"LiveUpdates position", func(st cache.Store) (any, error) { return st.LiveUpdates(ctx, "run-a1", -1, 0) }},
		{"LiveUpdates a position of another holder", func(st cache.Store) (any, error) { return st.LiveUpdates(ctx, "run-a1", 5, 0) }},
		{"LookupChat hit", func(st cache.Store) (any, error) { r, ok, err := st.LookupChat(key); return pair{r, ok}, err }},
		{"LookupChat miss", func(st cache.Store) (any, error) { r, ok, err := st.LookupChat("nokey"); return pair{r, ok}, err }},
		{"LookupEmbeddings", func(st cache.Store) (any, error) { return st.LookupEmbeddings(ekeys) }},
		{"LookupEmbeddings of nothing", func(st cache.Store) (any, error) { return st.LookupEmbeddings(nil) }},
		{"Call chat", func(st cache.Store) (any, error) {
			e, err := st.Call(key)
			return pair{e, [2]any{e.Response.Key, e.Response.Cached}}, err
		}},
		{"Call embedding", func(st cache.Store) (any, error) { return st.Call(ekeys[0]) }},
		{"Call missing", func(st cache.Store) (any, error) { return st.Call("nokey") }},
		{"Stats", func(st cache.Store) (any, error) { return st.Stats() }},
		{"Export", func(st cache.Store) (any, error) {
			var b bytes.Buffer
			n, err := st.Export(&b)
			_, entries, _ := strings.Cut(b.String(), "\n") // the header has the time of the export
			return pair{n, entries}, err
		}},
		{"PutResult of an unknown run", func(st cache.Store) (any, error) { return nil, st.PutResult("ghost", result(0)) }},
		{"PutResult nil", func(st cache.Store) (any, error) { return nil, st.PutResult("run-a1", nil) }},
		{"PutResult negative index", func(st cache.Store) (any, error) { return nil, st.PutResult("run-a1", result(-1)) }},
		{"PutResults with a bad id", func(st cache.Store) (any, error) { return nil, st.PutResults("a/b", []*eval.Result{result(0)}) }},
		{"PutRun reserved id", func(st cache.Store) (any, error) { return nil, st.PutRun(runInfo(cache.LatestRun, 1)) }},
		{"Clear negative", func(st cache.Store) (any, error) { return st.Clear(-time.Second) }},
		{"Clear nothing old", func(st cache.Store) (any, error) { return st.Clear(time.Hour) }},
		{"Import garbage", func(st cache.Store) (any, error) { return st.Import(strings.NewReader("nope\n")) }},
		{"Import empty", func(st cache.Store) (any, error) { return st.Import(strings.NewReader("")) }},
		{"Claim a free key", func(st cache.Store) (any, error) {
			release, granted, err := st.Claim(ctx, "free")
			if granted {
				release()
			}
			return granted, err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, werr := tc.do(db)
			got, gerr := tc.do(cl)
			if (werr == nil) != (gerr == nil) || (werr != nil && werr.Error() != gerr.Error()) {
				t.Fatalf("error through the socket %v, directly %v", gerr, werr)
			}
			sameJSON(t, tc.name, want, got)
		})
	}

	// Clear and Import through the socket, checked directly.
	var export bytes.Buffer
	if n, err := cl.Export(&export); err != nil || n != 3 {
		t.Fatalf("Export = %d, %v; want 3 entries", n, err)
	}
	if n, err := cl.Clear(0); err != nil || n != 3 {
		t.Fatalf("Clear = %d, %v; want 3", n, err)
	}
	if _, ok, _ := db.LookupChat(key); ok {
		t.Fatal("Clear through the socket left the chat entry")
	}
	if n, err := cl.Import(bytes.NewReader(export.Bytes())); err != nil || n != 3 {
		t.Fatalf("Import = %d, %v; want 3", n, err)
	}
	if got, ok, err := db.LookupChat(key); err != nil || !ok {
		t.Fatalf("imported entry missing: %v", err)
	} else {
		sameJSON(t, "imported reply", resp, got)
	}
}

func TestVectorsKeepWhatTheStoreKeeps(t *testing.T) {
	nan := math.Float64frombits(0x7ff8000000000001)
	tests := []struct {
		name string
		in   vectors
	}{
		{"nil", nil},
		{"empty", vectors{}},
		{"missing and present", vectors{nil, {1, -0.5, 3e-7}, nil}},
		{"empty vector", vectors{{}}},
		{"special values", vectors{{math.Inf(1), math.Inf(-1), nan, math.Copysign(0, -1)}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			var out vectors
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatal(err)
			}
			if (tc.in == nil) != (out == nil) || len(tc.in) != len(out) {
				t.Fatalf("%s came back as %v", b, out)
			}
			for i := range tc.in {
				if (tc.in[i] == nil) != (out[i] == nil) || len(tc.in[i]) != len(out[i]) {
					t.Fatalf("vector %d: %v came back as %v", i, tc.in[i], out[i])
				}
				for j, x := range tc.in[i] {
					if want := math.Float32bits(float32(x)); math.Float32bits(float32(out[i][j])) != want {
						t.Errorf("vector %d[%d]: %v came back as %v", i, j, x, out[i][j])
					}
				}
			}
		})
	}
	var out vectors
	for _, bad := range []string{`["AAA"]`, `["!!"]`, `{}`} {
		if err := json.Unmarshal([]byte(bad), &out); err == nil {
			t.Errorf("%s decoded", bad)
		}
	}
}

// A connection that is gone says ErrLost (the caller takes over and
// repeats); one this process closed says so, and is not "lost".
func TestLostConnection(t *testing.T) {
	ctx := context.Background()
	t.Run("holder stops between calls", func(t *testing.T) {
		db := newDB(t)
		srv := serveDB(t, db, ServeOptions{})
		cl := dial(t, srv.Socket())
		if _, err := cl.Runs(); err != nil {
			t.Fatal(err)
		}
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 2; i++ { // the first notices, the second finds the client shut
			if _, err := cl.Runs(); !errors.Is(err, ErrLost) {
				t.Fatalf("call %d after the holder stopped: %v, want ErrLost", i, err)
			}
		}
		if _, err := Dial(srv.Socket(), time.Second); !errors.Is(err, ErrNoHolder) {
			t.Fatalf("Dial after Close: %v, want ErrNoHolder", err)
		}
	})
	t.Run("holder stops during a LiveUpdates", func(t *testing.T) {
		db := newDB(t)
		srv := serveDB(t, db, ServeOptions{})
		cl := dial(t, srv.Socket())
		done := make(chan error, 1)
		go func() {
			b, err := cl.LiveUpdates(ctx, "r", -1, 0)
			if err == nil {
				_, err = cl.LiveUpdates(ctx, "r", b.Seq, 0)
			}
			done <- err
		}()
		waitParked(t, "cache.(*DB).LiveUpdatesRaw(", 1)
		if err := srv.Close(); err != nil {
			t.Fatal(err)
		}
		if err := <-done; !errors.Is(err, ErrLost) {
			t.Fatalf("LiveUpdates when the holder stopped: %v, want ErrLost", err)
		}
	})
	t.Run("closed by us", func(t *testing.T) {
		db := newDB(t)
		srv := serveDB(t, db, ServeOptions{})
		cl := dial(t, srv.Socket())
		if err := cl.Close(); err != nil {
			t.Fatal(err)
		}
		if err := cl.Close(); err != nil {
			t.Fatalf("second Close: %v", err)
		}
		_, err := cl.Runs()
		if !errors.Is(err, cache.ErrClosed) || errors.Is(err, ErrLost) {
			t.Fatalf("call after Close: %v, want cache.ErrClosed", err)
		}
	})
}

func TestLiveUpdatesThroughSocket(t *testing.T) {
	db := newDB(t)
	srv := serveDB(t, db, ServeOptions{})
	cl := dial(t, srv.Socket())
	if err := db.PutRun(runInfo("w", 3)); err != nil {
		t.Fatal(err)
	}
	pos, err := cl.LiveUpdates(context.Background(), "w", -1, 0)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("wakes on a write", func(t *testing.T) {
		got := make(chan cache.LiveBatch, 1)
		go func() {
			b, err := cl.LiveUpdates(context.Background(), "w", pos.Seq, 0)
			if err != nil {
				t.Error(err)
			}
			got <- b
		}()
		waitParked(t, "cache.(*DB).LiveUpdatesRaw(", 1)
		if err := db.PutResult("w", result(2)); err != nil {
			t.Fatal(err)
		}
		b := <-got
		if len(b.Results) != 1 || b.Results[0].Index != 2 || b.Seq <= pos.Seq {
			t.Fatalf("batch %+v", b)
		}
		pos = b
	})
	t.Run("wait passes", func(t *testing.T) {
		b, err := cl.LiveUpdates(context.Background(), "w", pos.Seq, 20*time.Millisecond)
		if err != nil || b.Seq != pos.Seq || len(b.Results) != 0 || b.Run != nil || b.Reset {
			t.Fatalf("empty wait: %+v, %v", b, err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			_, err := cl.LiveUpdates(ctx, "w", pos.Seq, 0)
			done <- err
		}()
		waitParked(t, "cache.(*DB).LiveUpdatesRaw(", 1)
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled LiveUpdates: %v", err)
		}
		// The abandoned request runs out on the holder; the connection
		// keeps serving meanwhile.
		if _, err := cl.Runs(); err != nil {
			t.Fatal(err)
		}
	})
}
