package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// A sample copied on its own is the same JSON as that sample in the report.
func TestSampleJSONIsTheReportsSample(t *testing.T) {
	tests := []struct {
		name string
		res  *eval.Result
	}{
		{"scored", sample(t, "f=0 ar=0.9 cp=1 cr=1")},
		{"noncommittal", sample(t, "ar=0 nc")},
		{"hostile text", func() *eval.Result {
			r := sample(t, "f=1")
			r.Question, r.Answer = "<b>&</b>\x1b]52;c;eA==\x07", "纳税人识别号不变\u202e"
			return r
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var one, rep bytes.Buffer
			if err := WriteSampleJSON(&one, tt.res, Levels{}); err != nil {
				t.Fatal(err)
			}
			if err := NewReport(RunInfo{ID: "r", Metrics: eval.AllMetrics}, []*eval.Result{tt.res}).WriteJSON(&rep); err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(one.Bytes(), &got); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, one.String())
			}
			var report struct {
				Samples []map[string]any `json:"samples"`
			}
			if err := json.Unmarshal(rep.Bytes(), &report); err != nil || len(report.Samples) != 1 {
				t.Fatalf("report: %v", err)
			}
			if !reflect.DeepEqual(got, report.Samples[0]) {
				t.Fatalf("the sample differs from the report's:\n%s\nreport:\n%s", one.String(), rep.String())
			}
			if got["diagnosis"] != string(Diagnose(tt.res)) {
				t.Fatalf("diagnosis %v, want %s", got["diagnosis"], Diagnose(tt.res))
			}
			if strings.Contains(one.String(), `\u003c`) || bytes.IndexByte(one.Bytes(), 0x1b) >= 0 {
				t.Fatalf("HTML escaped or a raw ESC:\n%s", one.String())
			}
		})
	}
}
