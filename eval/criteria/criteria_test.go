package criteria

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// contractYAML is the file shape the issue fixes as the public contract.
const contractYAML = `criteria:                      # the file may also be JSON with the same shape
  - name: cites_policy         # [a-z0-9_]+, not a metric name or abbreviation
    kind: regex
    pattern: "制度编号|第[0-9一二三四五六七八九十百]+条"
  - name: no_hr_deflection
    kind: not_contains
    values: ["咨询HR", "联系人力资源"]
  - name: polite
    kind: yes_no
    text: {zh: "回答语气礼貌、专业，使用简体中文", en: "The answer is polite and professional"}
    inputs: [question, answer]
    strictness: 3
    pass: 1
`

const contractJSON = `{"criteria": [
  {"name": "cites_policy", "kind": "regex", "pattern": "制度编号|第[0-9一二三四五六七八九十百]+条"},
  {"name": "no_hr_deflection", "kind": "not_contains", "values": ["咨询HR", "联系人力资源"]},
  {"name": "polite", "kind": "yes_no",
   "text": {"zh": "回答语气礼貌、专业，使用简体中文", "en": "The answer is polite and professional"},
   "inputs": ["question", "answer"], "strictness": 3, "pass": 1}
]}`

func reservedMetrics(name string) bool {
	switch name {
	case "faithfulness", "f", "answer_relevancy", "ar", "cp", "cr":
		return true
	}
	return false
}

func TestParseContract(t *testing.T) {
	for _, tc := range []struct{ name, data string }{{"yaml", contractYAML}, {"json", contractJSON}} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := Parse("c."+tc.name, []byte(tc.data), reservedMetrics)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(set.Names(), ","); got != "cites_policy,no_hr_deflection,polite" {
				t.Fatalf("names %s", got)
			}
			re := set.Find("cites_policy")
			if re.Kind != Regex || len(re.Compiled) != 1 || re.Pass != 1 {
				t.Errorf("cites_policy: %+v", re)
			}
			nc := set.Find("no_hr_deflection")
			if nc.Kind != NotContains || len(nc.Values) != 2 || nc.All {
				t.Errorf("no_hr_deflection: %+v", nc)
			}
			p := set.Find("polite")
			if p.Strictness != 3 || p.Text.In("zh") != "回答语气礼貌、专业，使用简体中文" || p.Text.In("en") != "The answer is polite and professional" {
				t.Errorf("polite: %+v", p)
			}
			if strings.Join(p.Inputs, ",") != "question,answer" || !p.Kind.NeedsJudge() || re.Kind.NeedsJudge() {
				t.Errorf("polite inputs %v", p.Inputs)
			}
			if set.Find("polite").Line != 8 && tc.name == "yaml" {
				t.Errorf("polite starts at line %d, want 8", p.Line)
			}
		})
	}
}

func TestParseRubricAndChecklist(t *testing.T) {
	data := `criteria:
  - name: tone
    kind: rubric
    text: 回答的语气
    levels:
      score3_description: {zh: 礼貌, en: polite}
      score1_description: 粗鲁
      score2_description: 生硬
  - name: steps
    kind: checklist
    inputs: [question, answer, contexts]
    items:
      - 提到要填写的表单
      - {en: names the approver}
`
	set, err := Parse("c.yaml", []byte(data), nil)
	if err != nil {
		t.Fatal(err)
	}
	tone := set.Find("tone")
	if len(tone.Levels) != 3 || tone.Levels[0].Score != 1 || tone.Levels[2].Description.In("zh") != "礼貌" || tone.Pass != 0.5 {
		t.Fatalf("tone: %+v", tone)
	}
	steps := set.Find("steps")
	if len(steps.Items) != 2 || steps.Items[1].In("zh") != "names the approver" || len(steps.Inputs) != 3 {
		t.Fatalf("steps: %+v", steps)
	}
}

// A mistake in the file is refused before any call, naming the file, the
// line and what to do.
func TestParseMistakes(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"unknown kind", "criteria:\n  - name: a\n    kind: llm_rubric\n", "c.yaml:3: criterion \"a\": unknown kind \"llm_rubric\": use one of yes_no, rubric"},
		{"empty text", "criteria:\n  - name: a\n    kind: yes_no\n    text: {zh: \"  \"}\n", "c.yaml:4: criterion \"a\": text is empty"},
		{"no text", "criteria:\n  - name: a\n    kind: yes_no\n", "c.yaml:2: criterion \"a\" needs text"},
		{"bad regex", "criteria:\n  - name: a\n    kind: regex\n    pattern: \"第[0-9+条\"\n", "c.yaml:4: criterion \"a\": pattern \"第[0-9+条\" does not compile: missing closing ]"},
		{"look-behind", "criteria:\n  - name: a\n    kind: regex\n    pattern: \"(?<=HR)x\"\n", "RE2"},
		{"duplicate", "criteria:\n  - name: a\n    kind: json_valid\n  - name: a\n    kind: json_valid\n", "c.yaml:4: criterion \"a\" is named twice (first at line 2)"},
		{"metric name", "criteria:\n  - name: faithfulness\n    kind: json_valid\n", "c.yaml:2: name \"faithfulness\" is taken by a metric (its name or abbreviation)"},
		{"metric abbrev", "criteria:\n  - name: cp\n    kind: json_valid\n", "is taken by a metric"},
		{"bad name", "criteria:\n  - name: Cites-Policy\n    kind: json_valid\n", "c.yaml:2: name \"Cites-Policy\": use lower-case letters"},
		{"unknown key", "criteria:\n  - name: a\n    kind: contains\n    values: [x]\n    patern: y\n", "c.yaml:5: criterion \"a\" (contains): unknown key \"patern\""},
		{"even strictness", "criteria:\n  - name: a\n    kind: yes_no\n    text: x\n    strictness: 2\n", "c.yaml:5: criterion \"a\": strictness \"2\": give an odd number"},
		{"pass range", "criteria:\n  - name: a\n    kind: json_valid\n    pass: 2\n", "c.yaml:4: criterion \"a\": pass \"2\": give a score between 0 and 1"},
		{"empty value", "criteria:\n  - name: a\n    kind: contains\n    values: [\"\"]\n", "holds an empty string"},
		{"one level", "criteria:\n  - name: a\n    kind: rubric\n    text: x\n    levels: {1: bad}\n", "at least two levels"},
		{"no answer input", "criteria:\n  - name: a\n    kind: yes_no\n    text: x\n    inputs: [question]\n", "inputs must include answer"},
		{"bad input", "criteria:\n  - name: a\n    kind: yes_no\n    text: x\n    inputs: [answer, history]\n", "input \"history\": use some of"},
		{"bad lang", "criteria:\n  - name: a\n    kind: lang\n    lang: chinese\n", "lang \"chinese\": use zh"},
		{"max zero", "criteria:\n  - name: a\n    kind: max_chars\n    max: 0\n", "max \"0\""},
		{"pii kind", "criteria:\n  - name: a\n    kind: pii\n    pii: [passport]\n", "pii \"passport\""},
		{"not a list", "criteria: {name: a}\n", "c.yaml:1: criteria must be a list"},
		{"other key", "metrics: []\n", "unknown key \"metrics\""},
		{"empty file", "", "c.yaml is empty"},
		{"syntax", "criteria:\n  - name: a\n   kind: x\n", "c.yaml:1: did not find expected '-' indicator: check the YAML or JSON syntax"},
		{"json syntax", "{\"criteria\": [\n{\"name\": \"a\",,}]}", "c.yaml:2: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(tc.data), reservedMetrics)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(path, []byte("\ufeff"+contractYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := Load(path, reservedMetrics)
	if err != nil || len(set.Criteria) != 3 || set.Path != path {
		t.Fatalf("%v %+v", err, set)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml"), nil); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("missing file: %v", err)
	}
}

func TestScores(t *testing.T) {
	d := func(v ...int) []Draw {
		out := make([]Draw, len(v))
		for i, x := range v {
			out[i] = Draw{Verdict: x}
		}
		return out
	}
	for _, tc := range []struct {
		draws []Draw
		want  float64
	}{
		{d(1), 1}, {d(0), 0}, {d(1, 0, 1), 1}, {d(0, 0, 1), 0}, {d(1, 1, 0, 0, 1), 1}, {d(1, 0, 0, 1, 0), 0}, {nil, 0},
	} {
		if got := Majority(tc.draws); got != tc.want {
			t.Errorf("Majority(%v) = %v, want %v", tc.draws, got, tc.want)
		}
	}
	c := &Criterion{Name: "tone", Levels: []Level{{1, Text{"": "rude"}}, {2, Text{"": "curt"}}, {3, Text{"": "ok"}}, {4, Text{"": "polite"}}, {5, Text{"en": "warm", "zh": "亲切"}}}}
	for level, want := range map[int]float64{1: 0, 2: 0.25, 4: 0.75, 5: 1} {
		got, _, err := c.RubricScore(level, "en")
		if err != nil || got != want {
			t.Errorf("RubricScore(%d) = %v %v, want %v", level, got, err, want)
		}
	}
	if _, desc, _ := c.RubricScore(5, "zh"); desc != "亲切" {
		t.Errorf("level 5 in zh: %q", desc)
	}
	if _, _, err := c.RubricScore(6, "en"); err == nil || !strings.Contains(err.Error(), "not on the scale 1–5") {
		t.Errorf("level 6: %v", err)
	}
	items := []ItemVerdict{{Verdict: 1}, {Verdict: 0}, {Verdict: 1}, {Verdict: 1}}
	if got := ChecklistScore(items); got != 0.75 {
		t.Errorf("ChecklistScore = %v", got)
	}
	if got := ChecklistScore(nil); got != 0 {
		t.Errorf("ChecklistScore(nil) = %v", got)
	}
	// A trace that does not fit its criterion is an error, never a score.
	for _, tc := range []struct {
		c    *Criterion
		tr   *Trace
		want string
	}{
		{&Criterion{Kind: YesNo}, &Trace{}, "no verdict"},
		{&Criterion{Kind: Rubric, Levels: c.Levels}, &Trace{}, "no level"},
		{&Criterion{Kind: Checklist, Items: []Text{{"": "a"}, {"": "b"}}}, &Trace{Items: items[:1]}, "1 item verdicts for 2 items"},
		{&Criterion{Kind: Regex}, &Trace{}, "exact check"},
	} {
		if _, err := tc.c.Score(tc.tr); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.c.Kind, err, tc.want)
		}
	}
	if got, err := (&Criterion{Kind: YesNo}).Score(&Trace{Draws: []Draw{{Verdict: 1}, {Verdict: 1}, {Verdict: 0}}}); err != nil || got != 1 {
		t.Errorf("yes_no Score = %v %v", got, err)
	}
}

// The example files a user copies must stay valid.
func TestExampleFiles(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/criteria/*.yaml")
	if len(paths) < 2 {
		t.Fatalf("examples: %v", paths)
	}
	for _, p := range paths {
		set, err := Load(p, reservedMetrics)
		if err != nil {
			t.Fatal(err)
		}
		kinds := map[bool]int{}
		for _, c := range set.Criteria {
			kinds[c.Kind.NeedsJudge()]++
		}
		if kinds[true] == 0 || kinds[false] == 0 {
			t.Errorf("%s: an example shows judged and exact criteria both: %v", p, kinds)
		}
	}
}
