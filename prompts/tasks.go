// Package prompts holds the judge prompt templates: one text/template per
// judge task and language, embedded, overridable file by file from a
// directory, and hashed so that a report says which prompt text produced its
// scores. Templates render a Data value with helpers that delimit user
// content (funcs.go); Schema gives each task's reply contract.
package prompts

import (
	"fmt"
	"slices"
	"strings"
)

// The judge tasks. The names are public: they appear in file names of
// overrides, in cache keys and in reports.
const (
	TaskFaithfulnessStatements       = "faithfulness_statements"
	TaskFaithfulnessVerdicts         = "faithfulness_verdicts"
	TaskAnswerRelevancyQuestion      = "answer_relevancy_question"
	TaskContextPrecisionVerdict      = "context_precision_verdict"
	TaskContextRecallClassifications = "context_recall_classifications"
	// TaskContextUtilizationVerdict is context precision's chunk verdict
	// with the answer in place of the reference (no reference needed).
	TaskContextUtilizationVerdict = "context_utilization_verdict"
	// TaskAnswerCorrectnessClassifications sorts the answer's and the
	// reference's statements into TP, FP and FN. The statements themselves
	// come from faithfulness_statements, asked of each text.
	TaskAnswerCorrectnessClassifications = "answer_correctness_classifications"
	// TaskEntailmentVerdicts judges numbered statements against one premise
	// text (.Text), a verdict each: factual correctness (premise: the
	// reference, or the answer) and noise sensitivity (premise: one chunk,
	// or the reference).
	TaskEntailmentVerdicts = "entailment_verdicts"
	// TaskContextEntityRecallEntities lists the named entities of one text
	// (.Text): asked of the reference and of the contexts joined.
	TaskContextEntityRecallEntities = "context_entity_recall_entities"
	// The tasks of a team's own criteria (package eval/criteria): a yes/no
	// verdict on one criterion (.Criterion), a level of its scale
	// (.Levels), a verdict per checklist item (.Items). Each sees only the
	// inputs its criterion lists; the others are empty.
	TaskCriterionYesNo     = "criterion_yes_no"
	TaskCriterionRubric    = "criterion_rubric"
	TaskCriterionChecklist = "criterion_checklist"
	// The tasks of a conversation's turns: the question rewritten so it
	// can be understood without the earlier turns (.History, .Question),
	// and each statement of a turn's answer judged against the earlier
	// turns (.History with their chunks, .Question, .Statements): where it
	// found support, and which earlier answer it contradicts.
	TaskConversationStandalone     = "conversation_standalone_question"
	TaskConversationHistoryVerdict = "conversation_history_verdicts"
)

// Kept unexported so that a caller appending to or reordering Tasks or Langs
// cannot change what this package accepts.
var (
	allTasks = [...]string{
		TaskFaithfulnessStatements,
		TaskFaithfulnessVerdicts,
		TaskAnswerRelevancyQuestion,
		TaskContextPrecisionVerdict,
		TaskContextRecallClassifications,
		TaskContextUtilizationVerdict,
		TaskAnswerCorrectnessClassifications,
		TaskEntailmentVerdicts,
		TaskContextEntityRecallEntities,
		TaskCriterionYesNo,
		TaskCriterionRubric,
		TaskCriterionChecklist,
		TaskConversationStandalone,
		TaskConversationHistoryVerdict,
	}
	allLangs = [...]string{"en", "zh"}
)

// Tasks lists the judge tasks in pipeline order.
var Tasks = allTasks[:]

// Langs lists the languages every task has a template in.
var Langs = allLangs[:]

// Data is what a template is rendered with.
type Data struct {
	Question, Answer, Reference string
	Contexts                    []string // ranked chunks
	Statements                  []string // faithfulness_verdicts, answer_correctness_classifications: the (answer's) statements, in order
	ReferenceStatements         []string // answer_correctness_classifications: the reference's statements
	Chunk                       string   // context_precision_verdict, context_utilization_verdict: the one chunk
	Rank                        int      // its 1-based rank
	Text                        string   // context_entity_recall_entities: the text to list the entities of; entailment_verdicts: the premise
	Criterion                   string   // criterion_*: what the criterion asks, in the prompt's language
	Levels                      []Level  // criterion_rubric: the scale, lowest first
	Items                       []string // criterion_checklist: the yes/no questions, in order
	// History is a conversation's earlier turns, oldest first: shown to
	// faithfulness_statements (so statements are standalone) and the
	// conversation_* tasks; nil for a single-turn sample, whose prompts
	// then render as they always did.
	History []Turn
}

// Turn is one earlier turn of a conversation: its number (from 1), what
// the user said, what the assistant answered, and the chunks retrieved for
// that answer.
type Turn struct {
	N               int
	User, Assistant string
	Chunks          []string
}

// Level is one level of a rubric criterion's scale.
type Level struct {
	Score       int
	Description string
}

// FileName is the file a template is exported to and overridden from.
func FileName(task, lang string) string { return task + "." + lang + ".tmpl" }

func key(task, lang string) string { return task + "." + lang }

// CheckTaskLang is nil for a known task and language, else an error that
// lists the valid ones.
func CheckTaskLang(task, lang string) error {
	if !slices.Contains(allTasks[:], task) {
		return fmt.Errorf("prompts: unknown task %q (valid tasks: %s)", task, strings.Join(allTasks[:], ", "))
	}
	if !slices.Contains(allLangs[:], lang) {
		return fmt.Errorf("prompts: unknown language %q (valid languages: %s)", lang, strings.Join(allLangs[:], ", "))
	}
	return nil
}

// validFileNames lists every override file name, for error messages.
func validFileNames() []string {
	var out []string
	for _, t := range allTasks {
		for _, l := range allLangs {
			out = append(out, FileName(t, l))
		}
	}
	return out
}

// parseFileName splits "<task>.<lang>.tmpl"; ok is false for any other name.
func parseFileName(name string) (task, lang string, ok bool) {
	stem, tmpl := strings.CutSuffix(name, ".tmpl")
	task, lang, _ = strings.Cut(stem, ".") // no task name holds a '.'
	if !tmpl || CheckTaskLang(task, lang) != nil {
		return "", "", false
	}
	return task, lang, true
}
