package summary

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// summarySkipped are the fields of eval.Result a summary leaves empty. A
// field added to eval.Result must be named here or in Fields.
var summarySkipped = []string{"contexts", "reference", "history", "standalone", "faithfulness", "context_precision",
	"context_recall", "context_utilization", "answer_similarity", "context_entity_recall", "noise_sensitivity"}

// Fields are the fields of eval.Result a Decoder fills, those a table row
// shows, searches, diagnoses and counts; it leaves the others empty.
var Fields = map[string]bool{
	"index": true, "id": true, "question": true, "answer": true, "conversation_id": true, "turn": true,
	"scores": true, "status": true, "errors": true,
	"answer_relevancy": true, "answer_correctness": true, "factual_correctness": true, "criteria": true, "calls": true,
}

func TestSummaryFieldsNameEveryField(t *testing.T) {
	skipped := map[string]bool{}
	for _, n := range summarySkipped {
		skipped[n] = true
	}
	for f := range reflect.TypeFor[eval.Result]().Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if Fields[name] == skipped[name] {
			t.Errorf("field %s (%q): name it in Fields or in summarySkipped", f.Name, name)
		}
	}
}

// fillAll sets every field of v, recursively, to a value that is not zero:
// texts with escapes, Chinese and a newline, maps and slices of two.
func fillAll(v reflect.Value, seed int) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(v.Elem(), seed)
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fillAll(v.Field(i), seed+i)
			}
		}
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		fillAll(v.Index(0), seed+1)
		fillAll(v.Index(1), seed+2)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for i := range 2 {
			k := reflect.New(v.Type().Key()).Elem()
			fillAll(k, seed+i)
			e := reflect.New(v.Type().Elem()).Elem()
			fillAll(e, seed+i+7)
			v.SetMapIndex(k, e)
		}
	case reflect.String:
		v.SetString(fmt.Sprintf("t%d \"q\" 纳税人\n<%d>", seed, seed))
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(int64(seed + 1))
	case reflect.Float64, reflect.Float32:
		v.SetFloat(float64(seed) + 0.25)
	case reflect.Bool:
		v.SetBool(true)
	}
}

// summaryOf is what RunSummaries should give for the stored JSON b: the
// whole result as encoding/json reads it, less the skipped fields.
func summaryOf(t *testing.T, b []byte) *eval.Result {
	t.Helper()
	want := new(eval.Result)
	if err := json.Unmarshal(b, want); err != nil {
		t.Fatal(err)
	}
	v := reflect.ValueOf(want).Elem()
	for i := range v.NumField() {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		if !Fields[name] {
			v.Field(i).SetZero()
		}
	}
	return want
}

func TestSummaryDecodesWhatEncodingJSONDoes(t *testing.T) {
	full := new(eval.Result)
	fillAll(reflect.ValueOf(full).Elem(), 0)
	full.Scores[eval.Faithfulness] = nil // a metric without a score
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"every field":            string(b),
		"white space":            strings.ReplaceAll(string(b), `":`, "\" \n:\t"),
		"plain":                  `{"index":3,"id":"s3","question":"Q?","answer":"A.","scores":{"faithfulness":0.5,"answer_relevancy":-1e-3},"status":{"faithfulness":"ok","answer_relevancy":"ok"}}`,
		"escaped key and status": `{"index":1,"\u0069d":"x","status":{"faithfulness":"o\u006b"},"scores":{"faith\u0066ulness":1}}`,
		"invalid UTF-8":          "{\"index\":2,\"question\":\"a\xffb\",\"answer\":\"\xe4\xb8\"}",
		"nulls":                  `{"index":null,"id":null,"scores":null,"status":null,"errors":null,"calls":null,"answer_relevancy":null}`,
		"null entries":           `{"scores":{"faithfulness":null},"status":{"faithfulness":null},"errors":{"faithfulness":null}}`,
		"duplicate keys":         `{"index":1,"index":2,"scores":{"faithfulness":1},"scores":{"context_recall":0},"errors":{"a":"x"},"errors":{"b":"y"}}`,
		"unknown keys skipped":   `{"index":4,"later":{"a":[1,2.5e3,true,false,null,"s\"\\"]},"id":"s4"}`,
		"empty":                  `{}`,
	}
	// The same decoder for every case, in turn each way: nothing of one
	// result may stay in the next.
	var d Decoder
	names := slices.Sorted(maps.Keys(cases))
	back := slices.Clone(names)
	slices.Reverse(back)
	for _, name := range slices.Concat(names, back) {
		in := cases[name]
		t.Run(name, func(t *testing.T) {
			for range 2 {
				got, err := d.Decode([]byte(in))
				if err != nil {
					t.Fatal(err)
				}
				if want := summaryOf(t, []byte(in)); !reflect.DeepEqual(got, want) {
					gb, _ := json.Marshal(got)
					wb, _ := json.Marshal(want)
					t.Fatalf("got  %s\nwant %s", gb, wb)
				}
			}
		})
	}
}

// Every value encoding/json refuses, the summary refuses: a damaged
// result is an error, never a half-read row (or a panic).
func TestSummaryRefusesWhatEncodingJSONRefuses(t *testing.T) {
	full := new(eval.Result)
	fillAll(reflect.ValueOf(full).Elem(), 0)
	b, err := json.Marshal(full)
	if err != nil {
		t.Fatal(err)
	}
	bad := []string{`[]`, `{"index":1.5}`, `{"index":"1"}`, `{"scores":{"f":"x"}}`, `{"status":{"f":1}}`, `{"id":"a\x01"}`,
		`{"id":"\q"}`, `{"id":"\u12"}`, `{"a":tru}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a" 1}`, `{"a":1 "b":2}`,
		`{"a":[1 2]}`, `{"a":1}x`, `{"calls":{}}`, strings.Repeat("[", 20000)}
	for i := range len(b) {
		bad = append(bad, string(b[:i])) // every prefix: a value cut short
	}
	var d Decoder
	for _, in := range bad {
		var r eval.Result
		if json.Unmarshal([]byte(in), &r) == nil {
			t.Fatalf("encoding/json reads %q", in)
		}
		if _, err := d.Decode([]byte(in)); err == nil {
			t.Errorf("the summary reads %.80q", in)
		}
	}
}
