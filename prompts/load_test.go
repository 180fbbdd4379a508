package prompts

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func embeddedSource(t *testing.T, task, lang string) string {
	t.Helper()
	src, err := Embedded().Source(task, lang)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

func TestLoadOverride(t *testing.T) {
	src := embeddedSource(t, TaskFaithfulnessStatements, "zh")
	edited := strings.Replace(src, "请找出", "请仔细找出", 1)
	dir := writeFiles(t, map[string]string{
		FileName(TaskFaithfulnessStatements, "zh"): edited,
		".faithfulness_statements.zh.tmpl.swp":     "vim swap file",
		"faithfulness_statements.zh.tmpl~":         "emacs backup",
	})
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Render(TaskFaithfulnessStatements, "zh", taxData("zh"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "请仔细找出") {
		t.Errorf("the override is not used:\n%s", out)
	}
	for _, info := range s.List() {
		overridden := info.Task == TaskFaithfulnessStatements && info.Lang == "zh"
		wantSource, wantPath := SourceEmbedded, ""
		if overridden {
			wantSource, wantPath = SourceOverride, filepath.Join(dir, "faithfulness_statements.zh.tmpl")
		}
		if info.Source != wantSource || info.Path != wantPath {
			t.Errorf("%s.%s: source %q path %q, want %q %q", info.Task, info.Lang, info.Source, info.Path, wantSource, wantPath)
		}
	}
	// The built-in set is shared; an override must never leak into it.
	if Embedded().Hashes()[key(TaskFaithfulnessStatements, "zh")] == s.Hashes()[key(TaskFaithfulnessStatements, "zh")] {
		t.Error("the hash did not change with the text")
	}
	if got, _ := Embedded().Source(TaskFaithfulnessStatements, "zh"); got != src {
		t.Error("Load modified the embedded set")
	}
}

func TestLoadEmptyDirIsEmbedded(t *testing.T) {
	s, err := Load(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for k, h := range Embedded().Hashes() {
		if s.Hashes()[k] != h {
			t.Errorf("%s: hash %s, want the embedded %s", k, s.Hashes()[k], h)
		}
	}
}

func TestLoadStripsByteOrderMark(t *testing.T) {
	src := embeddedSource(t, TaskContextPrecisionVerdict, "en")
	dir := writeFiles(t, map[string]string{FileName(TaskContextPrecisionVerdict, "en"): "\ufeff" + src})
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Hashes()[key(TaskContextPrecisionVerdict, "en")] != Embedded().Hashes()[key(TaskContextPrecisionVerdict, "en")] {
		t.Error("a byte-order mark changed the hash of an otherwise identical template")
	}
}

func TestLoadErrors(t *testing.T) {
	verdictsEN := embeddedSource(t, TaskFaithfulnessVerdicts, "en")
	tests := []struct {
		name  string
		files map[string]string
		// want are regexps; DIR stands for the override directory.
		want []string
	}{
		{
			name:  "syntax error names file and line",
			files: map[string]string{"faithfulness_statements.zh.tmpl": "第一行\n第二行\n{{.Answer}}{{end}}\n第四行\n"},
			want:  []string{`DIR/faithfulness_statements\.zh\.tmpl:3: unexpected \{\{end\}\}`},
		},
		{
			name:  "unknown function",
			files: map[string]string{"faithfulness_statements.en.tmpl": "Answer:\n{{upper .Answer}}\n"},
			want:  []string{`DIR/faithfulness_statements\.en\.tmpl:2: function "upper" not defined`},
		},
		{
			name:  "unknown field names file, line and the valid fields",
			files: map[string]string{"answer_relevancy_question.en.tmpl": "Answer: {{.Answer}}\nQuestion: {{.Foo}}\n"},
			want:  []string{`DIR/answer_relevancy_question\.en\.tmpl:2:\d+: unknown field \.Foo; the template data has \.Question, \.Answer, \.Reference, \.Contexts, \.Statements, \.ReferenceStatements, \.Chunk, \.Rank, \.Text`},
		},
		{
			name:  "unknown field in a branch the sample would not take",
			files: map[string]string{"faithfulness_statements.en.tmpl": "{{.Answer}}\n{{if false}}\n{{.Refrence}}\n{{end}}\n"},
			want:  []string{`DIR/faithfulness_statements\.en\.tmpl:3:\d+: unknown field \.Refrence`},
		},
		{
			name:  "field of a string inside range",
			files: map[string]string{"context_recall_classifications.en.tmpl": "{{.Reference}}\n{{range .Contexts}}\n- {{.Text}}\n{{end}}\n"},
			want:  []string{`context_recall_classifications\.en\.tmpl:3:\d+: \.Text: a string has no field \.Text`},
		},
		{
			name:  "field through a variable",
			files: map[string]string{"context_recall_classifications.zh.tmpl": "{{.Reference}}{{range $i, $c := .Contexts}}{{$c}}{{$.Contxts}}{{end}}"},
			want:  []string{`context_recall_classifications\.zh\.tmpl:1:\d+: unknown field \$\.Contxts`},
		},
		{
			name:  "runtime error caught by the trial render",
			files: map[string]string{"faithfulness_statements.en.tmpl": "{{.Answer}}\n{{index .Contexts 10}}\n"},
			want:  []string{`DIR/faithfulness_statements\.en\.tmpl:2:\d+: executing .*index out of range`},
		},
		{
			name:  "unknown file name names it, suggests and lists the valid names",
			files: map[string]string{"faithfulness_statement.en.tmpl": "x"},
			want: []string{
				`DIR/faithfulness_statement\.en\.tmpl: not a prompt template name; did you mean faithfulness_statements\.en\.tmpl\? valid names are faithfulness_statements\.en\.tmpl, faithfulness_statements\.zh\.tmpl, faithfulness_verdicts\.en\.tmpl`,
				`conversation_history_verdicts\.zh\.tmpl$`,
			},
		},
		{
			name:  "unknown language",
			files: map[string]string{"faithfulness_statements.de.tmpl": "x", "notes.txt": "x"},
			want:  []string{`faithfulness_statements\.de\.tmpl: not a prompt template name`, `DIR/notes\.txt: not a prompt template name`},
		},
		{
			name:  "template that drops a statement",
			files: map[string]string{"faithfulness_verdicts.en.tmpl": "{{chunks .Contexts}}\n{{index .Statements 0}}\n"},
			want:  []string{`DIR/faithfulness_verdicts\.en\.tmpl: the prompt never shows \.Statements \(every one of them\), so the judge cannot do faithfulness_verdicts`},
		},
		{
			name:  "template that drops the contexts",
			files: map[string]string{"faithfulness_verdicts.en.tmpl": strings.Replace(verdictsEN, "{{chunks .Contexts}}", "", 1)},
			want:  []string{`faithfulness_verdicts\.en\.tmpl: the prompt never shows \.Contexts`},
		},
		{
			name:  "empty file",
			files: map[string]string{"context_precision_verdict.zh.tmpl": " \n\n"},
			want:  []string{`DIR/context_precision_verdict\.zh\.tmpl: the file is empty; delete it to use the built-in template`},
		},
		{
			name:  "not UTF-8",
			files: map[string]string{"context_precision_verdict.zh.tmpl": "\xb5\xc4 {{.Chunk}}"},
			want:  []string{`context_precision_verdict\.zh\.tmpl: not valid UTF-8`},
		},
		{
			name: "every broken file is reported at once",
			files: map[string]string{
				"faithfulness_statements.en.tmpl":   "{{.Answer",
				"answer_relevancy_question.zh.tmpl": "{{.Nope}}",
			},
			want: []string{`faithfulness_statements\.en\.tmpl:1:`, `answer_relevancy_question\.zh\.tmpl:1:\d+: unknown field \.Nope`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := writeFiles(t, tt.files)
			s, err := Load(dir)
			if err == nil {
				t.Fatalf("Load accepted %v", tt.files)
			}
			if s != nil {
				t.Error("Load returned a set along with an error")
			}
			msg := err.Error()
			for _, w := range tt.want {
				re := regexp.MustCompile("(?m)" + strings.ReplaceAll(w, "DIR", regexp.QuoteMeta(dir)))
				if !re.MatchString(msg) {
					t.Errorf("error\n%s\ndoes not match %s", msg, re)
				}
			}
			if strings.Contains(msg, "template: ") {
				t.Errorf("error keeps text/template's prefix: %s", msg)
			}
		})
	}
}

func TestLoadDirectoryProblems(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	if _, err := Load(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing dir: error %v does not name it", err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "faithfulness_statements.en.tmpl"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "is a directory") {
		t.Errorf("directory in place of a file: error %v", err)
	}
}
