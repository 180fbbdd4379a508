package prompts

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"text/template"
	"unicode/utf8"
)

//go:embed templates/*.tmpl
var embedded embed.FS

// Info describes one template of a Set.
type Info struct {
	Task   string `json:"task"`
	Lang   string `json:"lang"`
	Source string `json:"source"`         // "embedded" or "override"
	Path   string `json:"path,omitempty"` // override file path, "" when embedded
	SHA256 string `json:"sha256"`         // of the template source text
}

// Sources of a template.
const (
	SourceEmbedded = "embedded"
	SourceOverride = "override"
)

type entry struct {
	info Info
	name string // the file name errors cite
	src  string
	tmpl *template.Template
}

// Set is one template per task and language. It is never modified after it
// is built, so Render may be called from many goroutines.
type Set struct {
	entries map[string]*entry
}

var embeddedSet = sync.OnceValues(func() (*Set, error) {
	s := &Set{entries: map[string]*entry{}}
	for _, t := range allTasks {
		for _, l := range allLangs {
			name := "templates/" + FileName(t, l)
			b, err := embedded.ReadFile(name)
			if err != nil {
				return nil, fmt.Errorf("prompts: built-in template %s is missing", name)
			}
			e, err := newEntry(t, l, name, b, Info{Source: SourceEmbedded})
			if err != nil {
				return nil, err
			}
			s.entries[key(t, l)] = e
		}
	}
	return s, nil
})

// Embedded returns the built-in templates. It panics only if they are
// broken, which a test of this package rules out.
func Embedded() *Set {
	s, err := embeddedSet()
	if err != nil {
		panic(err)
	}
	return s
}

// newEntry parses and vets one template; name is what errors cite
// (the embedded path or the override file's path).
func newEntry(task, lang, name string, b []byte, info Info) (*entry, error) {
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%s: not valid UTF-8; save the file as UTF-8", name)
	}
	// A byte-order mark would otherwise be sent to the judge and hashed.
	src := strings.TrimPrefix(string(b), "\ufeff")
	if strings.TrimSpace(src) == "" {
		return nil, fmt.Errorf("%s: the file is empty; delete it to use the built-in template", name)
	}
	t, err := parseTemplate(name, src)
	if err != nil {
		return nil, err
	}
	if err := checkFields(t, reflect.TypeFor[Data]()); err != nil {
		return nil, err
	}
	info.Task, info.Lang, info.SHA256 = task, lang, hashText(src)
	e := &entry{info: info, name: name, src: src, tmpl: t}
	if err := e.trialRender(task); err != nil {
		return nil, err
	}
	return e, nil
}

// parseTemplate parses without vetting. missingkey=error makes a map lookup
// of an absent key fail instead of printing "<no value>"; for the Data
// struct, text/template already fails on an unknown field when executed.
func parseTemplate(name, src string) (*template.Template, error) {
	t, err := template.New(name).Option("missingkey=error").Funcs(funcMap()).Parse(src)
	if err != nil {
		return nil, cleanErr(err)
	}
	return t, nil
}

func hashText(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// cleanErr drops text/template's "template: " prefix so that errors start
// with "file:line:", the form editors and terminals link to.
func cleanErr(err error) error {
	return fmt.Errorf("%s", strings.TrimPrefix(err.Error(), "template: "))
}

func (e *entry) execute(d Data) (string, error) {
	var b strings.Builder
	if err := e.tmpl.Execute(&b, d); err != nil {
		return "", cleanErr(err)
	}
	return b.String(), nil
}

// sample is the data of the trial render. Its texts are markers that cannot
// occur in a template's own text, so finding one in the output proves the
// template shows that input to the judge.
var sample = Data{
	Question:            "RAGSCOPE-SAMPLE-QUESTION",
	Answer:              "RAGSCOPE-SAMPLE-ANSWER",
	Reference:           "RAGSCOPE-SAMPLE-REFERENCE",
	Contexts:            []string{"RAGSCOPE-SAMPLE-CONTEXT-1", "RAGSCOPE-SAMPLE-CONTEXT-2\nsecond line", "RAGSCOPE-SAMPLE-CONTEXT-3"},
	Statements:          []string{"RAGSCOPE-SAMPLE-STATEMENT-1", "RAGSCOPE-SAMPLE-STATEMENT-2", "RAGSCOPE-SAMPLE-STATEMENT-3"},
	ReferenceStatements: []string{"RAGSCOPE-SAMPLE-REFERENCE-STATEMENT-1", "RAGSCOPE-SAMPLE-REFERENCE-STATEMENT-2"},
	Chunk:               "RAGSCOPE-SAMPLE-CHUNK",
	Rank:                2,
	Text:                "RAGSCOPE-SAMPLE-TEXT",
	Criterion:           "RAGSCOPE-SAMPLE-CRITERION",
	Levels:              []Level{{1, "RAGSCOPE-SAMPLE-LEVEL-1"}, {2, "RAGSCOPE-SAMPLE-LEVEL-2"}, {3, "RAGSCOPE-SAMPLE-LEVEL-3"}},
	Items:               []string{"RAGSCOPE-SAMPLE-ITEM-1", "RAGSCOPE-SAMPLE-ITEM-2"},
	History: []Turn{
		{N: 1, User: "RAGSCOPE-SAMPLE-USER-1", Assistant: "RAGSCOPE-SAMPLE-ASSISTANT-1", Chunks: []string{"RAGSCOPE-SAMPLE-EARLIER-CHUNK-1"}},
		{N: 2, User: "RAGSCOPE-SAMPLE-USER-2", Assistant: "RAGSCOPE-SAMPLE-ASSISTANT-2", Chunks: []string{"RAGSCOPE-SAMPLE-EARLIER-CHUNK-2"}},
	},
}

// need is an input a task's prompt must show: its field as the error names
// it, and the sample data's marker that shows it.
type need struct{ field, marker string }

// every needs each of a list field's markers given.
func every(field string, markers ...string) []need {
	out := make([]need, len(markers))
	for i, m := range markers {
		out[i] = need{field, m}
	}
	return out
}

const eachStatement, eachTurn = ".Statements (every one of them)", ".History (every turn)"

var (
	needAnswer    = need{".Answer", sample.Answer}
	needQuestion  = need{".Question", sample.Question}
	needReference = need{".Reference", sample.Reference}
	needCriterion = need{".Criterion", sample.Criterion}
	needChunk     = need{".Chunk", sample.Chunk}
	needContexts  = need{".Contexts", sample.Contexts[0]}
	// The first and last statements, and both earlier turns' users.
	needEnds  = every(eachStatement, sample.Statements[0], sample.Statements[2])
	needTurns = every(eachTurn, sample.History[0].User, sample.History[1].User)
)

// required lists, per task, the inputs without which the judge cannot do
// the task at all; a template that never shows one is rejected at load time
// instead of silently producing meaningless scores.
var required = map[string][]need{
	TaskFaithfulnessStatements:       {needAnswer},
	TaskFaithfulnessVerdicts:         slices.Concat([]need{needContexts}, every(eachStatement, sample.Statements...)),
	TaskAnswerRelevancyQuestion:      {needAnswer},
	TaskContextPrecisionVerdict:      {needQuestion, needReference, needChunk},
	TaskContextRecallClassifications: {needReference, needContexts},
	TaskContextUtilizationVerdict:    {needAnswer, needChunk},
	TaskAnswerCorrectnessClassifications: slices.Concat(needEnds,
		every(".ReferenceStatements (every one of them)", sample.ReferenceStatements...)),
	TaskContextEntityRecallEntities: {{".Text", sample.Text}},
	TaskCriterionYesNo:              {needCriterion, needAnswer},
	TaskCriterionRubric: slices.Concat([]need{needCriterion, needAnswer},
		every(".Levels (every one of them)", sample.Levels[0].Description, sample.Levels[2].Description)),
	TaskCriterionChecklist:     slices.Concat([]need{needAnswer}, every(".Items (every one of them)", sample.Items...)),
	TaskConversationStandalone: slices.Concat([]need{needQuestion}, needTurns),
	TaskConversationHistoryVerdict: slices.Concat(needTurns,
		every(".History (every turn's chunks, e.g. with sources)", sample.History[0].Chunks[0]), needEnds),
	TaskEntailmentVerdicts: slices.Concat([]need{{".Text (the premise)", sample.Text}}, every(eachStatement, sample.Statements...)),
}

func (e *entry) trialRender(task string) error {
	out, err := e.execute(sample)
	if err != nil {
		return fmt.Errorf("%w (while test-rendering with sample data)", err)
	}
	if strings.TrimSpace(out) == "" {
		return fmt.Errorf("%s: the template renders to an empty prompt", e.name)
	}
	for _, r := range required[task] {
		if !strings.Contains(out, r.marker) {
			return fmt.Errorf("%s: the prompt never shows %s, so the judge cannot do %s; add it back (compare with the built-in %s)",
				e.name, r.field, task, FileName(task, e.info.Lang))
		}
	}
	return nil
}

func (s *Set) lookup(task, lang string) (*entry, error) {
	if err := CheckTaskLang(task, lang); err != nil {
		return nil, err
	}
	return s.entries[key(task, lang)], nil
}

// Render renders the template of task in lang. Errors name the template file
// and line.
func (s *Set) Render(task, lang string, d Data) (string, error) {
	e, err := s.lookup(task, lang)
	if err != nil {
		return "", err
	}
	out, err := e.execute(d)
	if err != nil {
		return "", fmt.Errorf("prompts: render %s: %w", key(task, lang), err)
	}
	return out, nil
}

// Hashes maps "task.lang" to the template's sha256 for every template.
func (s *Set) Hashes() map[string]string {
	out := make(map[string]string, len(s.entries))
	for k, e := range s.entries {
		out[k] = e.info.SHA256
	}
	return out
}

// List describes every template, in task order then language order.
func (s *Set) List() []Info {
	out := make([]Info, 0, len(s.entries))
	for _, t := range allTasks {
		for _, l := range allLangs {
			out = append(out, s.entries[key(t, l)].info)
		}
	}
	return out
}

// Source returns the template text of task in lang.
func (s *Set) Source(task, lang string) (string, error) {
	e, err := s.lookup(task, lang)
	if err != nil {
		return "", err
	}
	return e.src, nil
}
