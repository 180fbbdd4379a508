package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report/internal/reporttest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// ciReport is a run with every kind of (sample, metric): scored above and
// below the thresholds of ciGate, failed, not applicable, with hostile text
// in ids, statements, reasons and error messages (reporttest.CIResults).
func ciReport() *Report {
	run := RunInfo{ID: "20261201-090000-ci", Dataset: "ci.jsonl", StartedAt: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC),
		Judge: eval.JudgeInfo{Name: "offline"}, Metrics: eval.DefaultMetrics, Samples: 4}
	return NewReport(run, reporttest.CIResults())
}

// ciGate breaches a mean (faithfulness 0.5625 < 0.8) and the per-sample
// gate (samples 0 and 1 below, one allowed); context recall's mean passes.
var ciGate = Gate{
	Mean:       []Threshold{{eval.Faithfulness, 0.8}, {eval.ContextRecall, 0.5}},
	Sample:     []Threshold{{eval.Faithfulness, 0.5}, {eval.AnswerRelevancy, 0}, {eval.ContextPrecision, 0.5}, {eval.ContextRecall, 0.5}},
	MaxFailing: Allowance{N: 1},
}

func ciTally(rep *Report, g Gate) (*Tally, *GateTally) {
	tally, gt := NewTally(rep.Run.Metrics), NewGateTally(g, 5)
	for _, r := range rep.Samples {
		tally.Add(r)
		gt.Add(r)
	}
	return tally, gt
}

func writeJUnit(t *testing.T, rep *Report, g Gate) []byte {
	t.Helper()
	tally, gt := ciTally(rep, g)
	var b bytes.Buffer
	if err := WriteReportJUnit(&b, rep.Run, tally.Summary(), gt, gt.Outcome(tally), rep.each); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// xnode is an element of a parsed XML document.
type xnode struct {
	name  string
	attrs map[string]string
	kids  []*xnode
	text  string
}

func parseXML(data []byte) (*xnode, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	var stack []*xnode
	var root *xnode
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			n := &xnode{name: tok.Name.Local, attrs: map[string]string{}}
			for _, a := range tok.Attr {
				if _, dup := n.attrs[a.Name.Local]; dup {
					return nil, fmt.Errorf("<%s>: attribute %s twice", n.name, a.Name.Local)
				}
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, n)
			} else if root != nil {
				return nil, errors.New("more than one root element")
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tok)
			}
		}
	}
	if root == nil {
		return nil, errors.New("no root element")
	}
	return root, nil
}

// junitSchema is the Jenkins JUnit schema (jenkins-junit.xsd, which
// extends Ant's): per element, its attributes (required ones marked) with
// their types, and its children with their bounds. Go's standard library
// has no XSD validator and no dependency may be added, so validateJUnit
// checks a document against this transcription with encoding/xml.
var junitSchema = map[string]struct {
	attrs map[string]string // name -> "int", "decimal", "dateTime" or "string"; a "!" prefix: required
	kids  map[string][2]int // child -> min, max occurrences (-1: unbounded)
	text  bool              // mixed content allowed
}{
	"testsuites": {attrs: map[string]string{"name": "string", "time": "decimal", "tests": "int", "failures": "int", "disabled": "int", "errors": "int"},
		kids: map[string][2]int{"testsuite": {0, -1}}},
	"testsuite": {attrs: map[string]string{"name": "!string", "tests": "!int", "failures": "int", "errors": "int", "time": "decimal",
		"disabled": "int", "skipped": "int", "timestamp": "dateTime", "hostname": "string", "id": "string", "package": "string",
		"file": "string", "log": "string", "url": "string", "version": "string"},
		kids: map[string][2]int{"properties": {0, 1}, "testcase": {0, -1}, "system-out": {0, 1}, "system-err": {0, 1}}},
	"testcase": {attrs: map[string]string{"name": "!string", "assertions": "string", "time": "decimal", "classname": "string",
		"status": "string", "file": "string", "line": "string"},
		kids: map[string][2]int{"skipped": {0, 1}, "error": {0, -1}, "failure": {0, -1}, "system-out": {0, -1}, "system-err": {0, -1}}},
	"failure": {attrs: map[string]string{"message": "string", "type": "string"}, text: true},
	"error":   {attrs: map[string]string{"message": "string", "type": "string"}, text: true},
	"skipped": {attrs: map[string]string{"message": "string"}, text: true},
}

var (
	xsdInt      = regexp.MustCompile(`^[+-]?[0-9]+$`)
	xsdDecimal  = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)
	xsdDateTime = regexp.MustCompile(`^-?[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})?$`)
)

// validateJUnit checks data is well-formed XML 1.0 of the JUnit schema, and
// that every count attribute equals the children it counts.
func validateJUnit(data []byte) error {
	for i, r := range string(data) {
		if !(r == 0x9 || r == 0xA || r == 0xD || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF) || r == utf8.RuneError {
			return fmt.Errorf("byte %d: %U is not an XML 1.0 character", i, r)
		}
	}
	root, err := parseXML(data)
	if err != nil {
		return fmt.Errorf("not well-formed: %v", err)
	}
	if root.name != "testsuites" {
		return fmt.Errorf("root element <%s>, want <testsuites>", root.name)
	}
	var check func(n *xnode) error
	check = func(n *xnode) error {
		el, ok := junitSchema[n.name]
		if !ok {
			return fmt.Errorf("element <%s> is not in the schema", n.name)
		}
		for a, typ := range el.attrs {
			v, ok := n.attrs[a]
			if req := strings.HasPrefix(typ, "!"); req && !ok {
				return fmt.Errorf("<%s> lacks required attribute %s", n.name, a)
			}
			typ = strings.TrimPrefix(typ, "!")
			re := map[string]*regexp.Regexp{"int": xsdInt, "decimal": xsdDecimal, "dateTime": xsdDateTime}[typ]
			if ok && re != nil && !re.MatchString(v) {
				return fmt.Errorf("<%s %s=%q>: not an xs:%s", n.name, a, v, typ)
			}
		}
		for a := range n.attrs {
			if _, ok := el.attrs[a]; !ok {
				return fmt.Errorf("<%s> has attribute %s, not in the schema", n.name, a)
			}
		}
		if !el.text && strings.TrimSpace(n.text) != "" {
			return fmt.Errorf("<%s> has text %q; the schema allows elements only", n.name, n.text)
		}
		count := map[string]int{}
		for _, k := range n.kids {
			bounds, ok := el.kids[k.name]
			if !ok {
				return fmt.Errorf("<%s> may not contain <%s>", n.name, k.name)
			}
			if count[k.name]++; bounds[1] >= 0 && count[k.name] > bounds[1] {
				return fmt.Errorf("<%s> has more than %d <%s>", n.name, bounds[1], k.name)
			}
			if err := check(k); err != nil {
				return err
			}
		}
		for k, bounds := range el.kids {
			if count[k] < bounds[0] {
				return fmt.Errorf("<%s> needs at least %d <%s>", n.name, bounds[0], k)
			}
		}
		return nil
	}
	if err := check(root); err != nil {
		return err
	}
	// The counts are the children's.
	sum := map[string]int{}
	for _, s := range root.kids {
		have := map[string]int{"tests": len(s.kids)}
		for _, c := range s.kids {
			for _, k := range c.kids {
				have[map[string]string{"failure": "failures", "error": "errors", "skipped": "skipped"}[k.name]]++
			}
		}
		for _, a := range []string{"tests", "failures", "errors", "skipped"} {
			if v, ok := s.attrs[a]; ok && v != strconv.Itoa(have[a]) {
				return fmt.Errorf("testsuite %s: %s=%s, but %d testcases say so", s.attrs["name"], a, v, have[a])
			}
			sum[a] += have[a]
		}
	}
	for _, a := range []string{"tests", "failures", "errors"} {
		if v, ok := root.attrs[a]; ok && v != strconv.Itoa(sum[a]) {
			return fmt.Errorf("testsuites: %s=%s, the suites add up to %d", a, v, sum[a])
		}
	}
	return nil
}

// The JUnit report is valid under the JUnit schema, its counts are its
// testcases', hostile text arrives escaped and visible, and the bytes are
// the golden file's.
func TestJUnitReport(t *testing.T) {
	for name, g := range map[string]Gate{"gated": ciGate, "no gate": {}} {
		t.Run(name, func(t *testing.T) {
			data := writeJUnit(t, ciReport(), g)
			if err := validateJUnit(data); err != nil {
				t.Fatalf("%v\n%s", err, data)
			}
			golden := filepath.Join("testdata", "junit-"+strings.ReplaceAll(name, " ", "-")+".xml")
			if *update {
				if err := os.WriteFile(golden, data, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test ./eval -run TestJUnitReport -update writes it)", err)
			}
			if !bytes.Equal(data, want) {
				t.Errorf("JUnit report differs from %s (-update rewrites it):\n%s", golden, data)
			}
		})
	}
	root, err := parseXML(writeJUnit(t, ciReport(), ciGate))
	if err != nil {
		t.Fatal(err)
	}
	find := func(suite, test string) *xnode {
		for _, s := range root.kids {
			for _, c := range s.kids {
				if s.attrs["name"] == suite && strings.HasPrefix(c.attrs["name"], test) {
					return c
				}
			}
		}
		t.Fatalf("no testcase %s in suite %s", test, suite)
		return nil
	}
	for _, c := range []struct {
		suite, test, child, typ string
		says                    []string
	}{
		{"faithfulness", "s0", "failure", "below_threshold", []string{"0.250 is below 0.5", "unsupported", `\x1b]0;pwned\x07`, "<U+202E>", "<U+FFFE>", "<b>&amp;</b> ]]>", `\r\n::error`}},
		{"answer_relevancy", "s1", "failure", "below_threshold", []string{"-0.125 is below 0", `noncommittal: "what is it?"`}},
		{"context_precision", "s1", "failure", "below_threshold", []string{"0.300 is below 0.5", "chunk 1 not useful: off topic"}},
		{"context_recall", "s1", "failure", "below_threshold", []string{"0.200 is below 0.5", `not attributed: "the ID stays": not retrieved`}},
		{"context_precision", "s0", "error", "judge_error", []string{"429 a\\x00b"}},
		{"faithfulness", "s3", "error", "parse_error", []string{"reply is not JSON"}},
		{"faithfulness", "#2", "skipped", "", []string{"no_statements"}},
		{"ragscope.gate", "faithfulness mean >= 0.8", "failure", "gate_breached", []string{"faithfulness mean 0.562 < 0.8"}},
		{"ragscope.gate", "samples below", "failure", "gate_breached", []string{"2 of 4 samples"}},
	} {
		tc := find(c.suite, c.test)
		if len(tc.kids) != 1 || tc.kids[0].name != c.child || tc.kids[0].attrs["type"] != c.typ {
			t.Errorf("%s %s: children %+v, want one <%s type=%q>", c.suite, c.test, tc.kids, c.child, c.typ)
			continue
		}
		for _, s := range c.says {
			if msg := tc.kids[0].attrs["message"]; !strings.Contains(msg, s) {
				t.Errorf("%s %s: message %q does not say %q", c.suite, c.test, msg, s)
			}
		}
	}
	if tc := find("ragscope.gate", "context_recall mean"); len(tc.kids) != 0 {
		t.Errorf("a passing mean gate has %+v", tc.kids)
	}
	if tc := find("faithfulness", "s1"); len(tc.kids) != 0 || tc.attrs["classname"] != "faithfulness" {
		t.Errorf("a passing sample: %+v", tc)
	}
	if tc := find("faithfulness", "s0"); tc.attrs["time"] != "1.500" {
		t.Errorf("s0 faithfulness time %q, want the calls' 1.500 s", tc.attrs["time"])
	}
}

// The validator itself rejects what the schema does.
func TestValidateJUnitRejects(t *testing.T) {
	for name, doc := range map[string]string{
		"wrong root":        `<testsuite name="a" tests="0"/>`,
		"count mismatch":    `<testsuites><testsuite name="a" tests="2"><testcase name="x"/></testsuite></testsuites>`,
		"failures mismatch": `<testsuites><testsuite name="a" tests="1" failures="0"><testcase name="x"><failure/></testcase></testsuite></testsuites>`,
		"missing name":      `<testsuites><testsuite tests="0"/></testsuites>`,
		"bad int":           `<testsuites><testsuite name="a" tests="two"/></testsuites>`,
		"bad time":          `<testsuites><testsuite name="a" tests="0" time="1s"/></testsuites>`,
		"unknown child":     `<testsuites><testsuite name="a" tests="1"><testcase name="x"><oops/></testcase></testsuite></testsuites>`,
		"two skipped":       `<testsuites><testsuite name="a" tests="1"><testcase name="x"><skipped/><skipped/></testcase></testsuite></testsuites>`,
		"control character": "<testsuites name=\"a\x01\"/>",
		"not well-formed":   `<testsuites><testsuite name="a" tests="0"></testsuites>`,
	} {
		if err := validateJUnit([]byte(doc)); err == nil {
			t.Errorf("%s: accepted %s", name, doc)
		}
	}
}

// GitHub's workflow commands: %, CR and LF escaped in data, and : and ,
// too in properties; no control character survives.
func TestGitHubEscaping(t *testing.T) {
	for _, c := range []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"100%", "100%25", "100%25"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"%0A", "%250A", "%250A"},
		{"k: v, w", "k: v, w", "k%3A v%2C w"},
		{"\x1b[31mred", `\x1b[31mred`, `\x1b[31mred`},
		{"tab\there", `tab\there`, `tab\there`},
	} {
		if got := gitHubData(c.in); got != c.data {
			t.Errorf("GitHubData(%q) = %q, want %q", c.in, got, c.data)
		}
		if got := gitHubProperty(c.in); got != c.prop {
			t.Errorf("GitHubProperty(%q) = %q, want %q", c.in, got, c.prop)
		}
	}
}

// The GitHub format: an error per gate check that did not pass, an error
// per score below its threshold when the per-sample gate is breached (a
// warning when within --max-failing), a warning per failed metric, a
// notice last; every line one command, whatever the data holds.
func TestReportGitHub(t *testing.T) {
	for _, c := range []struct {
		name  string
		gate  Gate
		below string // command of a sample below its threshold
		gates int    // gate errors
	}{
		{"breached", ciGate, "error", 2},
		{"within max-failing", Gate{Sample: ciGate.Sample, MaxFailing: Allowance{N: 2}}, "warning", 0},
		{"no gate", Gate{}, "", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep := ciReport()
			tally, gt := ciTally(rep, c.gate)
			var b bytes.Buffer
			if err := WriteReportGitHub(&b, rep.Run, tally.Summary(), gt.Outcome(tally), rep.each); err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
			for _, l := range lines {
				if !regexp.MustCompile(`^::(error|warning|notice) title=[^:,]*::`).MatchString(l) || strings.ContainsAny(l, "\r\x1b\x00") {
					t.Fatalf("not one clean workflow command: %q", l)
				}
			}
			gateErrs, belowN := 0, 0
			for _, l := range lines {
				switch {
				case strings.HasPrefix(l, "::error title=ragscope "):
					gateErrs++
				case strings.Contains(l, " is below "):
					belowN++
					if !strings.HasPrefix(l, "::"+c.below+" ") {
						t.Errorf("below threshold as %q, want ::%s", l, c.below)
					}
				}
			}
			wantBelow := 0
			if c.gate.Sample != nil {
				wantBelow = 4 // s0 faithfulness; s1 answer_relevancy, context_precision, context_recall
			}
			if gateErrs != c.gates || belowN != wantBelow {
				t.Errorf("%d gate errors, %d below threshold; want %d, %d\n%s", gateErrs, belowN, c.gates, wantBelow, b.String())
			}
			if w := strings.Count(b.String(), "::warning title=context_precision judge_error"); w != 1 {
				t.Errorf("%d warnings for the judge error, want 1\n%s", w, b.String())
			}
			if !strings.HasPrefix(lines[len(lines)-1], "::notice title=ragscope run 20261201-090000-ci::faithfulness 0.562 (2 scored, 1 failed)") {
				t.Errorf("last line %q", lines[len(lines)-1])
			}
			if c.gate.Sample != nil && !strings.Contains(b.String(), `%0D%0A::error ::x`) {
				t.Errorf("the hostile CR LF is not escaped:\n%s", b.String())
			}
		})
	}
}

// JSON Lines: one compact line per sample, each the report's sample object.
func TestReportJSONLIsTheReportSamples(t *testing.T) {
	for name, rep := range map[string]*Report{"ci": ciReport(), "hostile": hostileReport(), "empty": NewReport(ciReport().Run, nil)} {
		t.Run(name, func(t *testing.T) {
			var whole, lines bytes.Buffer
			if err := rep.WriteJSON(&whole); err != nil {
				t.Fatal(err)
			}
			if err := WriteReportJSONL(&lines, Levels{}, rep.each); err != nil {
				t.Fatal(err)
			}
			var doc struct{ Samples []json.RawMessage }
			if err := json.Unmarshal(whole.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSuffix(lines.String(), "\n"), "\n")
			if lines.Len() == 0 {
				got = nil
			}
			if len(got) != len(doc.Samples) {
				t.Fatalf("%d lines for %d samples:\n%s", len(got), len(doc.Samples), lines.String())
			}
			for i, l := range got {
				var want bytes.Buffer
				if err := json.Compact(&want, doc.Samples[i]); err != nil {
					t.Fatal(err)
				}
				if l != want.String() {
					t.Errorf("line %d:\n%s\nwant\n%s", i, l, want.String())
				}
			}
		})
	}
}
