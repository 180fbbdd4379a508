package holder

import (
	"testing"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/labels"
)

// Labels go through the holder as every other write: the interface of a
// process that does not hold the database labels while a run holds it.
func TestLabelsThroughSocket(t *testing.T) {
	db := newDB(t)
	srv := serveDB(t, db, ServeOptions{Version: "test", Role: "run"})
	cl := dial(t, srv.Socket())

	sk := labels.SampleKey("q", "a", []string{"c"}, "r")
	l := labels.Label{Key: labels.LabelKey(sk, eval.LabelContextPrecision, "1"), SampleKey: sk, Sample: "s0",
		Task: eval.LabelContextPrecision, Item: "1", Value: 0, Note: "off topic", By: "ana",
		UpdatedAt: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	if err := cl.PutLabels([]labels.Label{l}); err != nil {
		t.Fatal(err)
	}
	direct, err := db.Labels(nil)
	if err != nil || direct[l.Key] != l {
		t.Fatalf("the holder's store has %+v, %v", direct, err)
	}
	all, err := cl.Labels(nil)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "every label", direct, all)
	none, err := cl.Labels([]string{})
	if err != nil || len(none) != 0 {
		t.Fatalf("an empty key list over the socket: %d labels, %v (nil means all, empty means none)", len(none), err)
	}
	bad := l
	bad.Item = "2"
	if err := cl.PutLabels([]labels.Label{bad}); err == nil {
		t.Fatal("a label whose key is not its content's went through the socket")
	}
	if n, err := cl.DeleteLabels([]string{l.Key}); err != nil || n != 1 {
		t.Fatalf("DeleteLabels = %d, %v", n, err)
	}
	if left, _ := db.Labels(nil); len(left) != 0 {
		t.Fatalf("left after delete: %+v", left)
	}
}
