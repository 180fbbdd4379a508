package holder

import (
	"reflect"
	"testing"

	"github.com/ragscope/ragscope/cache"
	"github.com/ragscope/ragscope/eval"
)

// Every method is a func the dispatch can call: the connection or the
// database first, an error last.
func TestMethodsTakeTheConnectionOrTheDatabase(t *testing.T) {
	for name, m := range methods {
		ft := reflect.TypeOf(m)
		if ft.Kind() != reflect.Func || ft.NumIn() == 0 || ft.In(0) != reflect.TypeFor[*conn]() && ft.In(0) != dbType ||
			ft.NumOut() == 0 || ft.Out(ft.NumOut()-1) != reflect.TypeFor[error]() {
			t.Errorf("%s is a %v", name, ft)
		}
	}
}

// A Stub over CallDB answers each of its calls as the database does: the
// values it gives match the table's types.
func TestStubInThisProcess(t *testing.T) {
	db := newDB(t)
	st := NewStub(func(method string, args []any, results ...any) error {
		return CallDB(db, method, args, results...)
	})
	if err := st.PutRun(runInfo("run-a1", 3)); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResult("run-a1", result(0)); err != nil {
		t.Fatal(err)
	}
	if err := st.PutResults("run-a1", []*eval.Result{result(1), result(2)}); err != nil {
		t.Fatal(err)
	}
	if id, err := st.NewRunID(); err != nil || id == "" {
		t.Fatalf("NewRunID = %q, %v", id, err)
	}
	runs, err := st.Runs()
	if err != nil || len(runs) != 1 {
		t.Fatalf("Runs = %v, %v", runs, err)
	}
	info, rs, err := st.Run("run-a1")
	if err != nil || info.ID != "run-a1" || len(rs) != 3 {
		t.Fatalf("Run = %v, %d results, %v", info.ID, len(rs), err)
	}
	if _, page, next, err := st.RunPage("run-a1", 1, 1); err != nil || len(page) != 1 || page[0].Index != 1 || next != 2 {
		t.Fatalf("RunPage = %v, %d, %v", page, next, err)
	}
	req := eval.ChatRequest{Model: "m", Task: "t", Messages: []eval.Message{{Role: "user", Content: "hi"}}}
	if err := st.PutChat(req.Key(), req, eval.ChatResponse{Choices: []string{"{}"}}); err != nil {
		t.Fatal(err)
	}
	if resp, ok, err := st.LookupChat(req.Key()); err != nil || !ok || resp.Choices[0] != "{}" {
		t.Fatalf("LookupChat = %v, %v, %v", resp, ok, err)
	}
	if e, err := st.Call(req.Key()); err != nil || e == nil || e.Task != "t" || !e.Response.Cached {
		t.Fatalf("Call = %+v, %v", e, err)
	}
	er := eval.EmbedRequest{Endpoint: "e", Model: "m"}
	if err := st.PutEmbeddings(er, []string{"a"}, [][]float64{{0.5, 1}}); err != nil {
		t.Fatal(err)
	}
	if vs, err := st.LookupEmbeddings([]string{eval.EmbedKey("e", "m", 0, "a"), "none"}); err != nil || len(vs) != 2 || len(vs[0]) != 2 || vs[1] != nil {
		t.Fatalf("LookupEmbeddings = %v, %v", vs, err)
	}
	if err := st.PutLabels(nil); err != nil {
		t.Fatal(err)
	}
	if ls, err := st.Labels(nil); err != nil || ls == nil {
		t.Fatalf("Labels = %v, %v", ls, err)
	}
	if n, err := st.DeleteLabels([]string{"x"}); err != nil || n != 0 {
		t.Fatalf("DeleteLabels = %d, %v", n, err)
	}
	if s, err := st.Stats(); err != nil || s.LastRun == nil {
		t.Fatalf("Stats = %+v, %v", s, err)
	}
	admitted, err := st.WatchAdmit("s", cache.WatchAdmit{RunID: "run-a1", Take: []cache.WatchRecord{{Hash: "ab"}}})
	if err != nil || len(admitted.Taken) != 1 {
		t.Fatalf("WatchAdmit = %+v, %v", admitted, err)
	}
	if err := st.WatchResult("s", "ab", "run-a1", result(0)); err != nil {
		t.Fatal(err)
	}
	if ws, err := st.WatchLoad("s"); err != nil || ws.Meta == nil || len(ws.Pending) != 0 {
		t.Fatalf("WatchLoad = %+v, %v", ws, err)
	}
	if n, err := st.Clear(0); err != nil || n != 2 {
		t.Fatalf("Clear = %d, %v", n, err)
	}
	if _, _, err := st.Run("nope"); err == nil {
		t.Fatal("Run of an unknown run succeeded")
	}
}
