package cache

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/labels"
)

func testLabel(i, value int) labels.Label {
	sk := labels.SampleKey(fmt.Sprintf("question %d", i), "answer", []string{"c"}, "")
	item := fmt.Sprintf("statement %d %s", i, strings.Repeat("x", 40))
	return labels.Label{Key: labels.LabelKey(sk, eval.LabelFaithfulness, item), SampleKey: sk, Sample: fmt.Sprint(i),
		Task: eval.LabelFaithfulness, Item: item, Value: value, Note: "n", By: "tester",
		UpdatedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
}

func TestLabelsStore(t *testing.T) {
	db := openTemp(t)
	a, b := testLabel(1, 0), testLabel(2, 1)
	if err := db.PutLabels([]labels.Label{a, b}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Labels([]string{a.Key, "absent"})
	if err != nil || len(got) != 1 || got[a.Key] != a {
		t.Fatalf("Labels(a) = %+v, %v", got, err)
	}
	all, err := db.Labels(nil)
	if err != nil || len(all) != 2 {
		t.Fatalf("Labels(nil) = %d labels, %v", len(all), err)
	}
	if none, err := db.Labels([]string{}); err != nil || len(none) != 0 {
		t.Fatalf("Labels([]) = %d labels, %v; an empty list asks for none", len(none), err)
	}
	a.Value = 1
	if err := db.PutLabels([]labels.Label{a}); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Labels([]string{a.Key}); got[a.Key].Value != 1 {
		t.Fatal("a second PutLabels did not replace the label")
	}
	if n, err := db.DeleteLabels([]string{a.Key, a.Key, "absent"}); err != nil || n != 1 {
		t.Fatalf("DeleteLabels = %d, %v", n, err)
	}
	if st, _ := db.Stats(); st.Of(KindLabels).Entries != 1 {
		t.Fatalf("stats: %+v", st.Kinds)
	}

	bad := testLabel(3, 1)
	bad.Item = "another item"
	if err := db.PutLabels([]labels.Label{bad}); err == nil {
		t.Fatal("a label whose key is not its content's was stored")
	}
	bad = testLabel(3, 2)
	if err := db.PutLabels([]labels.Label{bad}); err == nil || !strings.Contains(err.Error(), "0 or 1") {
		t.Fatalf("label 2: %v", err)
	}
}

// A damaged database must not lose labels silently: check counts them and
// salvage copies those still readable.
func TestLabelsCheckedAndSalvaged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 400
	var ls []labels.Label
	for i := range n {
		ls = append(ls, testLabel(i, i%2))
	}
	if err := db.PutLabels(ls); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	rep, err := Check(path)
	if err != nil || !rep.OK() || rep.Of(KindLabels).Readable != n {
		t.Fatalf("check of a sound file: %+v, %v", rep, err)
	}

	overwrite(t, path, int64(pageOf(t, path, "labels", 0.5))*4096, make([]byte, 4096))
	rep, err = Check(path)
	if err != nil || rep.OK() {
		t.Fatalf("check of a damaged file: ok %v, %v", rep.OK(), err)
	}
	out := filepath.Join(t.TempDir(), "salvaged.db")
	srep, err := Salvage(path, out)
	if err != nil {
		t.Fatal(err)
	}
	copied := srep.Of(KindLabels).Copied
	if copied == 0 || copied >= n || !srep.Of(KindLabels).AtLeast {
		t.Fatalf("salvage copied %d of %d labels (%+v)", copied, n, srep.Of(KindLabels))
	}
	sdb, err := Open(out, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	got, err := sdb.Labels(nil)
	if err != nil || len(got) != copied {
		t.Fatalf("the salvaged file has %d labels (%v), the report says %d", len(got), err, copied)
	}
}
