package dataset

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// writeTree writes files (path relative to dir -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// loaded shows the samples as the reference tests compare them:
// id|question|answer|contexts|reference|line.
func loaded(l *Loaded) []string {
	var out []string
	for _, s := range l.Samples {
		out = append(out, strings.Join([]string{s.ID, s.Question, s.Answer, strings.Join(s.Contexts, "+"), s.Reference}, "|")+"|"+strconv.Itoa(s.Line))
	}
	return out
}

// TestPromptfooConfigReferences loads promptfoo configs whose tests live
// in other files, from another working directory: references resolve
// against the config's directory, not the working directory.
func TestPromptfooConfigReferences(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		opt   Options
		want  []string
	}{
		{
			name: "inline cases mixed with yaml, csv, jsonl and json references",
			files: map[string]string{
				"promptfooconfig.yaml": "prompts: ['{{query}}']\n" +
					"defaultTest:\n  vars:\n    ground_truth: shared reference\n" +
					"tests:\n" +
					"  - description: inline\n    vars: {query: q0, answer: a0}\n" +
					"  - file://tests/more.yaml\n" +
					"  - file://./tests/rows.csv\n" +
					"  - tests/lines.jsonl\n" +
					"  - file://tests/cases.json\n",
				"tests/more.yaml":   "- description: from yaml\n  vars: {query: q1, answer: a1, context: [c1]}\n",
				"tests/rows.csv":    "question,answer,context\nq2,a2,c2\n",
				"tests/lines.jsonl": `{"vars": {"query": "q3", "answer": "a3"}, "description": "from jsonl"}` + "\n",
				"tests/cases.json":  `[{"vars": {"query": "q4", "answer": "a4", "ground_truth": "own"}}]`,
			},
			want: []string{
				"inline|q0|a0||shared reference|6",
				"from yaml|q1|a1|c1|shared reference|1",
				"|q2|a2|c2|shared reference|2",
				"from jsonl|q3|a3||shared reference|1",
				"|q4|a4||own|1",
			},
		},
		{
			name: "a CSV tests file: __description is the id, as description is in YAML",
			files: map[string]string{
				"promptfooconfig.yaml": "tests: file://tests/*.csv\n",
				"tests/a.csv":          "__expected,query,context,answer,__description\ncontains:5,年假几天,年休假5天。,5天,csv-1\n",
				"tests/b.csv":          "query,answer,description\nq,a,plain\n",
			},
			want: []string{"csv-1|年假几天|5天|年休假5天。||2", "plain|q|a|||2"},
		},
		{
			name: "tests: one reference to a directory, read in name order",
			files: map[string]string{
				"promptfooconfig.yaml": "tests: file://tests/\n",
				"tests/b.yaml":         "- vars: {query: qb, answer: a}\n",
				"tests/a.json":         `{"tests": [{"vars": {"query": "qa", "answer": "a"}}]}`,
				"tests/notes.txt":      "not a tests file",
			},
			want: []string{"|qa|a|||1", "|qb|a|||1"},
		},
		{
			name: "a glob, and a defaultTest file",
			files: map[string]string{
				"promptfooconfig.yaml": "defaultTest: file://default.yaml\ntests: file://tests/*.yaml\n",
				"default.yaml":         "vars:\n  context: the policy\n",
				"tests/one.yaml":       "- vars: {query: q1, answer: a}\n",
				"tests/two.yaml":       "- vars: {query: q2, answer: a}\n",
				"tests/skip.json":      `[{"vars": {"query": "not matched", "answer": "a"}}]`,
			},
			want: []string{"|q1|a|the policy||1", "|q2|a|the policy||1"},
		},
		{
			name: "a JSON config with a JSON tests reference",
			files: map[string]string{
				"promptfooconfig.yaml": `{"tests": "file://t.yaml"}`,
				"t.yaml":               "tests:\n  - vars: {query: q, answer: a}\n",
			},
			want: []string{"|q|a|||2"},
		},
		{
			name: "--map applies to the referenced files too",
			files: map[string]string{
				"promptfooconfig.yaml": "tests: [file://t.yaml]\n",
				"t.yaml":               "- vars: {prompt: q, output: a}\n",
			},
			opt:  Options{Map: map[string]string{"question": "prompt", "answer": "output"}},
			want: []string{"|q|a|||1"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			writeTree(t, filepath.Join(root, "cfg"), tt.files)
			if err := os.Mkdir(filepath.Join(root, "elsewhere"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Chdir(filepath.Join(root, "elsewhere"))
			path := filepath.Join("..", "cfg", "promptfooconfig.yaml")
			sameAsLoad(t, path, tt.opt)
			l, err := Load(path, tt.opt)
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if got := loaded(l); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("samples\n got %q\nwant %q", got, tt.want)
			}
			if l.Path != path || l.Format != FormatYAML {
				t.Errorf("path %q format %q, want %q yaml", l.Path, l.Format, path)
			}
			for i, s := range l.Samples {
				if s.Index != i {
					t.Errorf("sample %d has index %d", i, s.Index)
				}
			}
		})
	}
}

func TestPromptfooReferenceErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		opt   Options
		file  string // the file the error names, relative to the config's directory
		line  int
		field string
		want  []string
	}{
		{
			name:  "a reference to a missing file names both files",
			files: map[string]string{"promptfooconfig.yaml": "prompts: [x]\ntests:\n  - vars: {query: q, answer: a}\n  - file://tests/missing.yaml\n"},
			file:  "promptfooconfig.yaml", line: 4,
			want: []string{`promptfooconfig.yaml:4: tests reference "file://tests/missing.yaml": `, filepath.Join("tests", "missing.yaml") + " does not exist", "relative to", "the directory of", "fix the path"},
		},
		{
			name: "a reference cycle is refused",
			files: map[string]string{
				"promptfooconfig.yaml": "tests: file://a.yaml\n",
				"a.yaml":               "tests:\n  - vars: {query: q, answer: a}\n  - file://b.yaml\n",
				"b.yaml":               "tests: [file://a.yaml]\n",
			},
			file: "b.yaml", line: 1,
			want: []string{`b.yaml:1: tests reference "file://a.yaml" makes a cycle (`, "a.yaml → ", "b.yaml → ", "remove the reference back"},
		},
		{
			name:  "a config referring to itself",
			files: map[string]string{"promptfooconfig.yaml": "tests: file://*.yaml\n"},
			file:  "promptfooconfig.yaml", line: 1,
			want: []string{"makes a cycle"},
		},
		{
			name: "an error in a referenced file names it and its line",
			files: map[string]string{
				"promptfooconfig.yaml": "tests: [file://t.yaml]\n",
				"t.yaml":               "- vars: {query: q, answer: a}\n- vars: {query: q2}\n",
			},
			file: "t.yaml", line: 2, field: "answer",
			want: []string{`t.yaml:2: field "answer": missing`},
		},
		{
			name: "a duplicate id across files says where it was first used",
			files: map[string]string{
				"promptfooconfig.yaml": "tests:\n  - {description: same, vars: {query: q, answer: a}}\n  - file://t.yaml\n",
				"t.yaml":               "- {description: same, vars: {query: q2, answer: a}}\n",
			},
			file: "t.yaml", line: 1, field: "id",
			want: []string{`duplicate id "same", first used at line 2 of `, "promptfooconfig.yaml"},
		},
		{
			name:  "a test generator is not run",
			files: map[string]string{"promptfooconfig.yaml": "tests: file://gen.py\n", "gen.py": "print()\n"},
			file:  "promptfooconfig.yaml", line: 1,
			want: []string{`tests reference "file://gen.py": ragscope reads yaml, yml, json, jsonl, ndjson, csv or tsv files here, not gen.py`},
		},
		{
			name:  "a glob matching nothing",
			files: map[string]string{"promptfooconfig.yaml": "tests: file://tests/*.yaml\n"},
			file:  "promptfooconfig.yaml", line: 1,
			want: []string{"no yaml, yml, json, jsonl, ndjson, csv or tsv file matches"},
		},
		{
			name: "a JSON tests list referring to a missing file",
			files: map[string]string{
				"promptfooconfig.yaml": "tests: file://cases.json\n",
				"cases.json":           `{"tests": [{"vars": {"query": "q", "answer": "a"}}, "file://nope.csv"]}`,
			},
			file: "cases.json", line: 2,
			want: []string{`cases.json: element 2: tests reference "file://nope.csv"`, "nope.csv does not exist"},
		},
		{
			name:  "a missing defaultTest file",
			files: map[string]string{"promptfooconfig.yaml": "defaultTest: file://d.yaml\ntests: []\n"},
			file:  "promptfooconfig.yaml", line: 1,
			want: []string{`tests reference "file://d.yaml"`, "does not exist"},
		},
		{
			name: "an empty referenced file",
			files: map[string]string{
				"promptfooconfig.yaml": "tests: file://t.jsonl\n",
				"t.jsonl":              "",
			},
			file: "t.jsonl",
			want: []string{"t.jsonl: no samples"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "cfg")
			writeTree(t, dir, tt.files)
			t.Chdir(root)
			sameAsLoad(t, filepath.Join("cfg", "promptfooconfig.yaml"), tt.opt)
			_, err := Load(filepath.Join("cfg", "promptfooconfig.yaml"), tt.opt)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v, want a *dataset.Error", err)
			}
			if e.File != filepath.Join("cfg", tt.file) || e.Line != tt.line || e.Field != tt.field {
				t.Errorf("error names {%q %d %q}, want {%q %d %q}\n%v", e.File, e.Line, e.Field, filepath.Join("cfg", tt.file), tt.line, tt.field, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q\n does not contain %q", err, w)
				}
			}
		})
	}
}

// TestPromptfooSkipInvalidNamesTheFile: a record skipped in a referenced
// file is reported with that file's name.
func TestPromptfooSkipInvalidNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"promptfooconfig.yaml": "tests:\n  - vars: {query: q0}\n  - file://t.yaml\n",
		"t.yaml":               "- vars: {query: q1, answer: a}\n- vars: {query: q2}\n",
	})
	cfg := filepath.Join(dir, "promptfooconfig.yaml")
	l, err := Load(cfg, Options{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Samples) != 1 || l.Samples[0].Question != "q1" {
		t.Fatalf("samples %+v", l.Samples)
	}
	want := []string{cfg + `:2: field "answer": missing`, filepath.Join(dir, "t.yaml") + `:2: field "answer": missing`}
	if len(l.Skipped) != 2 {
		t.Fatalf("skipped %+v", l.Skipped)
	}
	for i, s := range l.Skipped {
		if got := l.SkipError(s).Error(); !strings.HasPrefix(got, want[i]) {
			t.Errorf("skip %d: %q, want it to start with %q", i, got, want[i])
		}
	}
}

// TestPromptfooHash: the dataset's hash covers the files it references, so
// a changed tests file is a changed dataset; a file without references
// hashes as its bytes.
func TestPromptfooHash(t *testing.T) {
	dir := t.TempDir()
	cfgText := "tests: file://t.yaml\n"
	writeTree(t, dir, map[string]string{"promptfooconfig.yaml": cfgText, "t.yaml": "- vars: {query: q, answer: a}\n"})
	cfg := filepath.Join(dir, "promptfooconfig.yaml")
	first, err := Load(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfgSum := sha256.Sum256([]byte(cfgText))
	refSum := sha256.Sum256([]byte("- vars: {query: q, answer: a}\n"))
	want := sha256.Sum256(append(cfgSum[:], refSum[:]...))
	if first.SHA256 != hex.EncodeToString(want[:]) {
		t.Errorf("SHA256 = %s, want the sha256 of the two files' sha256s %x", first.SHA256, want)
	}
	writeTree(t, dir, map[string]string{"t.yaml": "- vars: {query: q, answer: changed}\n"})
	second, err := Load(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if second.SHA256 == first.SHA256 {
		t.Error("the hash did not change with the referenced tests file")
	}
	plain, err := Load(filepath.Join(dir, "t.yaml"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256([]byte("- vars: {query: q, answer: changed}\n")); plain.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("a file without references: SHA256 %s, want its bytes' %x", plain.SHA256, sum)
	}
}
