package read

import (
	"fmt"
	"slices"
	"strings"
)

// Our fields, in the order a record is checked (so the first problem
// reported is the most important one).
const (
	FQuestion = iota
	FAnswer
	FContexts
	FReference
	FID
	NFields
)

var FieldNames = [NFields]string{"question", "answer", "contexts", "reference", "id"}

// defaultNames are the column names each field is found under, first match
// wins: RAGAS >= 0.2 first (the current schema), then RAGAS 0.1, then
// promptfoo's variable names.
var defaultNames = [NFields][]string{
	FQuestion:  {"user_input", "question", "query"},
	FAnswer:    {"response", "answer"},
	FContexts:  {"retrieved_contexts", "contexts", "context"},
	FReference: {"reference", "ground_truth", "ground_truths"},
	FID:        {"id"},
}

func required(f int) bool { return f == FQuestion || f == FAnswer }

func fieldIndex(name string) int { return slices.Index(FieldNames[:], name) }

// Fields lists our field names, the keys of Options.Map and --map.
func Fields() []string {
	return []string{"id", "question", "answer", "contexts", "reference"}
}

// ParseMap parses a --map value such as "question=q_col,answer=resp" into
// our field -> the user's column. Column names cannot contain commas.
func ParseMap(s string) (map[string]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	m := map[string]string{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		field, col, ok := strings.Cut(part, "=")
		field, col = strings.TrimSpace(field), strings.TrimSpace(col)
		if !ok || col == "" {
			return nil, fmt.Errorf("--map: %q is not field=column (e.g. --map question=q_col,answer=resp)", part)
		}
		if fieldIndex(field) < 0 && !isTraceSelector(field) {
			return nil, fmt.Errorf("--map: unknown field %q — the fields are %s (and, for a trace file, the spans %s)", field, strings.Join(Fields(), ", "), strings.Join(TraceSelectors, ", "))
		}
		if _, dup := m[field]; dup {
			return nil, fmt.Errorf("--map: field %q is mapped twice — map each field once", field)
		}
		m[field] = col
	}
	return m, checkMapColumns(m)
}

// checkMapColumns rejects two fields read from one column: it is always a
// slip (the answer scored against itself as the question, say).
func checkMapColumns(m map[string]string) error {
	byCol := map[string]string{}
	for _, field := range Fields() {
		col, ok := m[field]
		if !ok {
			continue
		}
		if other, dup := byCol[col]; dup {
			return fmt.Errorf("--map: fields %q and %q both read column %q — map each field to its own column", other, field, col)
		}
		byCol[col] = field
	}
	return nil
}

// Columns holds, per field, the column names to try in order.
type Columns struct {
	Names  [NFields][]string
	mapped [NFields]bool
}

func NewColumns(m map[string]string) (*Columns, error) {
	c := &Columns{}
	for field, col := range m {
		if isTraceSelector(field) {
			continue // read by the trace reader
		}
		f := fieldIndex(field)
		if f < 0 {
			return nil, fmt.Errorf("--map: unknown field %q — the fields are %s", field, strings.Join(Fields(), ", "))
		}
		if strings.TrimSpace(col) == "" {
			return nil, fmt.Errorf("--map: field %q is mapped to an empty column name", field)
		}
		c.Names[f] = []string{col}
		c.mapped[f] = true
	}
	if err := checkMapColumns(m); err != nil {
		return nil, err
	}
	// A column the user claimed for one field must not be picked up by
	// another field's default names: with --map reference=answer the
	// "answer" column is the reference, not also the answer.
	claimed := func(name string) bool {
		for k, col := range m {
			if !isTraceSelector(k) && strings.EqualFold(col, name) {
				return true
			}
		}
		return false
	}
	for f := range NFields {
		if !c.mapped[f] {
			c.Names[f] = slices.DeleteFunc(slices.Clone(defaultNames[f]), claimed)
		}
	}
	return c, nil
}

// missingMsg explains a required field that no column supplies.
func (c *Columns) missingMsg(f int, have []string, what string) string {
	if c.mapped[f] {
		return fmt.Sprintf("missing — %s %q named by --map %s=%s is not there (%ss: %s); fix --map",
			what, c.Names[f][0], FieldNames[f], c.Names[f][0], what, List(have))
	}
	return fmt.Sprintf("missing — no %s named %s (%ss: %s); rename the %s or pass --map %s=<%s>",
		what, OrList(c.Names[f]), what, List(have), what, FieldNames[f], what)
}

func OrList(names []string) string {
	switch len(names) {
	case 0:
		return "(none)"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// List shows the columns a record does have, sorted and capped so a wide
// record does not flood the terminal.
func List(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return capped(slices.Sorted(slices.Values(names)), 12)
}

// capped joins names, the first max of them and a count of the rest.
func capped(names []string, max int) string {
	if len(names) > max {
		return strings.Join(names[:max], ", ") + fmt.Sprintf(" and %d more", len(names)-max)
	}
	return strings.Join(names, ", ")
}
