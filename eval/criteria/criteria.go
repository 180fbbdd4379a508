// Package criteria holds a team's own criteria, read from a YAML or JSON
// file and reported like metrics: yes_no, rubric and checklist are judged by
// the LLM, the other kinds are exact checks of the answer that need no judge
// (check.go). The whole file is checked before a run makes any call.
package criteria

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Kind is how a criterion is judged.
type Kind string

// The kinds a criteria file may name.
const (
	YesNo       Kind = "yes_no"
	Rubric      Kind = "rubric"
	Checklist   Kind = "checklist"
	Contains    Kind = "contains"
	NotContains Kind = "not_contains"
	Regex       Kind = "regex"
	NotRegex    Kind = "not_regex"
	MaxChars    Kind = "max_chars"
	JSONValid   Kind = "json_valid"
	Lang        Kind = "lang"
	PII         Kind = "pii"
)

var kinds = []Kind{YesNo, Rubric, Checklist, Contains, NotContains, Regex, NotRegex, MaxChars, JSONValid, Lang, PII}

// NeedsJudge reports whether the kind is judged by the LLM; the others are
// exact checks.
func (k Kind) NeedsJudge() bool { return k == YesNo || k == Rubric || k == Checklist }

// The inputs a judged criterion may be shown.
const (
	InputQuestion  = "question"
	InputAnswer    = "answer"
	InputContexts  = "contexts"
	InputReference = "reference"
)

var inputNames = []string{InputQuestion, InputAnswer, InputContexts, InputReference}

// Text is a criterion's wording per language ("zh", "en"); a plain string
// in the file is the wording for every language.
type Text map[string]string

// In is the wording in lang, else in the other language the file gives.
func (t Text) In(lang string) string {
	return cmp.Or(t[lang], t[""], t["zh"], t["en"])
}

// Level is one level of a rubric's scale.
type Level struct {
	Score       int
	Description Text
}

// Criterion is one entry of a criteria file.
type Criterion struct {
	Name string
	Kind Kind
	// Line is where the criterion starts in its file, for messages.
	Line int

	// Text is what the judge is asked (yes_no, rubric).
	Text Text
	// Inputs are what the judge sees; the answer at least.
	Inputs []string
	// Strictness is the number of yes_no draws, odd; the majority decides.
	Strictness int
	// Levels are a rubric's scale, lowest first.
	Levels []Level
	// Items are a checklist's yes/no questions.
	Items []Text

	// Values are the strings of contains and not_contains; Patterns the
	// expressions of regex and not_regex, compiled in Compiled.
	Values   []string
	Patterns []string
	Compiled []*regexp.Regexp
	// All: every value or pattern must match (contains, regex) or match
	// together (not_contains, not_regex) rather than any one of them.
	All bool
	// CaseSensitive turns off case folding; width folding (full-width
	// Latin letters and digits as their ASCII forms) always applies.
	CaseSensitive bool
	// Max is max_chars' limit, in characters as a reader counts them.
	Max int
	// Language is lang's expected language: zh (either script), zh-Hans,
	// zh-Hant or en.
	Language string
	// PIIKinds restricts pii to some of phone, email, id_card, bank_card.
	PIIKinds []string

	// Pass is the score a sample needs on this criterion.
	Pass float64
}

// Set is the criteria of one file, in file order.
type Set struct {
	Path     string
	Criteria []*Criterion
	// SHA256 is the hex digest of the file's contents, which a run records so
	// that its report says which criteria scored it.
	SHA256 string
}

// Names are the criteria's names, in file order.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	out := make([]string, len(s.Criteria))
	for i, c := range s.Criteria {
		out[i] = c.Name
	}
	return out
}

// Find is the criterion named name, nil if none is.
func (s *Set) Find(name string) *Criterion {
	if i := slices.Index(s.Names(), name); i >= 0 {
		return s.Criteria[i]
	}
	return nil
}

// MaxFileBytes bounds a criteria file: it is configuration, read whole.
const MaxFileBytes = 4 << 20

// Load reads and checks the criteria file at path. reserved reports names
// a criterion may not take (the metrics' names and abbreviations); it may
// be nil.
func Load(path string, reserved func(string) bool) (*Set, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("criteria: %w", err)
	}
	if info.Size() > MaxFileBytes {
		return nil, fmt.Errorf("criteria: %s is %d bytes, more than a criteria file's %d: split it or check that it is the right file", path, info.Size(), MaxFileBytes)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("criteria: %w", err)
	}
	return Parse(path, data, reserved)
}

// Parse reads a criteria file's contents; name is used in messages. YAML
// and JSON are read by the same parser (JSON is YAML), so both get line
// numbers.
func Parse(name string, data []byte, reserved func(string) bool) (*Set, error) {
	p := parser{file: name, reserved: reserved}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if err := jsonSyntax(name, data); err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		where := name + ": "
		if line, rest, ok := strings.Cut(strings.TrimPrefix(msg, "line "), ": "); ok && strings.HasPrefix(msg, "line ") {
			where, msg = name+":"+line+": ", rest
		}
		return nil, fmt.Errorf("criteria: %s%s: check the YAML or JSON syntax there", where, msg)
	}
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("criteria: %s is empty: write `criteria:` and a list of criteria (see docs/criteria.md)", name)
	}
	root := doc.Content[0]
	list := root
	if root.Kind == yaml.MappingNode {
		list = nil
		for i := 0; i+1 < len(root.Content); i += 2 {
			k := root.Content[i]
			if k.Value != "criteria" {
				return nil, p.errf(k, "unknown key %q: a criteria file holds one key, criteria, with a list", k.Value)
			}
			list = root.Content[i+1]
		}
		if list == nil {
			return nil, p.errf(root, "no criteria key: write `criteria:` and a list of criteria")
		}
	}
	if list.Kind != yaml.SequenceNode {
		return nil, p.errf(list, "criteria must be a list (each entry starting with `- name:`)")
	}
	if len(list.Content) == 0 {
		return nil, p.errf(list, "the criteria list is empty: add a criterion or leave out --criteria")
	}
	sum := sha256.Sum256(data)
	set := &Set{Path: name, SHA256: hex.EncodeToString(sum[:])}
	seen := map[string]int{}
	for _, n := range list.Content {
		c, err := p.criterion(n)
		if err != nil {
			return nil, err
		}
		if line, dup := seen[c.Name]; dup {
			return nil, p.errf(n, "criterion %q is named twice (first at line %d): give each a name of its own", c.Name, line)
		}
		seen[c.Name] = c.Line
		set.Criteria = append(set.Criteria, c)
	}
	return set, nil
}

// jsonSyntax checks a file written as JSON with the JSON decoder, whose
// errors say where on which line; YAML's parser places every error of a
// JSON document on the line its outer brace opens.
func jsonSyntax(name string, data []byte) error {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return nil
	}
	var v any
	var se *json.SyntaxError
	if err := json.Unmarshal(data, &v); errors.As(err, &se) {
		line := 1 + bytes.Count(data[:se.Offset], []byte("\n"))
		return fmt.Errorf("criteria: %s:%d: %v: check the JSON syntax there", name, line, se)
	}
	return nil
}

type parser struct {
	file     string
	reserved func(string) bool
}

func (p *parser) errf(n *yaml.Node, format string, args ...any) error {
	return fmt.Errorf("criteria: %s:%d: %s", p.file, n.Line, fmt.Sprintf(format, args...))
}

var nameRE = regexp.MustCompile(`^[a-z0-9_]+$`)

// ValidName says s is written as a criterion's name may be: lower-case
// letters, digits and _.
func ValidName(s string) bool { return nameRE.MatchString(s) }

// keys are the keys each kind may use besides name, kind and pass.
var keys = map[Kind][]string{
	YesNo:       {"text", "inputs", "strictness"},
	Rubric:      {"text", "inputs", "levels"},
	Checklist:   {"items", "inputs"},
	Contains:    {"values", "match", "case_sensitive"},
	NotContains: {"values", "match", "case_sensitive"},
	Regex:       {"pattern", "patterns", "match", "case_sensitive"},
	NotRegex:    {"pattern", "patterns", "match", "case_sensitive"},
	MaxChars:    {"max"},
	JSONValid:   {},
	Lang:        {"lang"},
	PII:         {"pii"},
}

func (p *parser) criterion(n *yaml.Node) (*Criterion, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errf(n, "a criterion is a mapping with name and kind (`- name: …` then `kind: …`)")
	}
	fields := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if _, dup := fields[k.Value]; dup {
			return nil, p.errf(k, "key %q is given twice in one criterion", k.Value)
		}
		fields[k.Value] = n.Content[i+1]
	}
	c := &Criterion{Line: n.Line}
	name, ok := fields["name"]
	if !ok || name.Kind != yaml.ScalarNode || name.Value == "" {
		return nil, p.errf(n, "a criterion needs a name (lower-case letters, digits and _)")
	}
	c.Name = name.Value
	if !nameRE.MatchString(c.Name) {
		return nil, p.errf(name, "name %q: use lower-case letters, digits and _ only (it is typed in filters and gates)", c.Name)
	}
	if p.reserved != nil && p.reserved(c.Name) {
		return nil, p.errf(name, "name %q is taken by a metric (its name or abbreviation), a judge task or a report column (answer, diagnosis, …_status): choose another so filters, gates, label files and reports stay unambiguous", c.Name)
	}
	kind, ok := fields["kind"]
	if !ok {
		return nil, p.errf(n, "criterion %q needs a kind: one of %s", c.Name, kindList())
	}
	c.Kind = Kind(kind.Value)
	allowed, known := keys[c.Kind]
	if !known {
		return nil, p.errf(kind, "criterion %q: unknown kind %q: use one of %s", c.Name, kind.Value, kindList())
	}
	for i := 0; i < len(n.Content); i += 2 {
		k, at := n.Content[i].Value, n.Content[i]
		if k != "name" && k != "kind" && k != "pass" && !slices.Contains(allowed, k) {
			return nil, p.errf(at, "criterion %q (%s): unknown key %q: a %s criterion takes %s", c.Name, c.Kind, k, c.Kind, strings.Join(append([]string{"name", "kind", "pass"}, allowed...), ", "))
		}
	}
	if err := p.fill(c, fields); err != nil {
		return nil, err
	}
	// A yes/no or exact check must pass, a rubric reach the middle of its
	// scale.
	c.Pass = 1
	if c.Kind == Rubric {
		c.Pass = 0.5
	}
	if v, ok := fields["pass"]; ok {
		f, err := strconv.ParseFloat(v.Value, 64)
		if err != nil || f < 0 || f > 1 {
			return nil, p.errf(v, "criterion %q: pass %q: give a score between 0 and 1", c.Name, v.Value)
		}
		c.Pass = f
	}
	return c, nil
}

func kindList() string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// fill reads the kind's own keys.
func (p *parser) fill(c *Criterion, f map[string]*yaml.Node) error {
	var err error
	if c.Kind.NeedsJudge() {
		if c.Inputs, err = p.inputs(c, f["inputs"]); err != nil {
			return err
		}
	}
	if c.Kind == YesNo || c.Kind == Rubric {
		if c.Text, err = p.text(c, f["text"], "text"); err != nil {
			return err
		}
	}
	switch c.Kind {
	case YesNo:
		c.Strictness = 1
		if n := f["strictness"]; n != nil {
			c.Strictness, err = strconv.Atoi(n.Value)
			if err != nil || c.Strictness < 1 || c.Strictness%2 == 0 || c.Strictness > 15 {
				return p.errf(n, "criterion %q: strictness %q: give an odd number of draws from 1 to 15 (the majority decides)", c.Name, n.Value)
			}
		}
	case Rubric:
		return p.levels(c, f["levels"])
	case Checklist:
		items := f["items"]
		if items == nil || items.Kind != yaml.SequenceNode || len(items.Content) == 0 {
			return p.errf(orNode(items, c), "criterion %q: a checklist needs items, a list of yes/no questions", c.Name)
		}
		for _, it := range items.Content {
			t, err := p.text(c, it, "item")
			if err != nil {
				return err
			}
			c.Items = append(c.Items, t)
		}
	case Contains, NotContains:
		if c.Values, err = p.strings(c, f["values"], "values"); err != nil {
			return err
		}
		return p.matchFlags(c, f)
	case Regex, NotRegex:
		return p.patterns(c, f)
	case MaxChars:
		n := f["max"]
		if n == nil {
			return p.errf(orNode(nil, c), "criterion %q: max_chars needs max, the most characters an answer may have", c.Name)
		}
		c.Max, err = strconv.Atoi(n.Value)
		if err != nil || c.Max < 1 {
			return p.errf(n, "criterion %q: max %q: give a whole number of characters above 0", c.Name, n.Value)
		}
	case Lang:
		n := f["lang"]
		if n == nil {
			return p.errf(orNode(nil, c), "criterion %q: lang needs lang: zh, zh-Hans, zh-Hant or en", c.Name)
		}
		switch n.Value {
		case "zh", "zh-Hans", "zh-Hant", "en":
			c.Language = n.Value
		default:
			return p.errf(n, "criterion %q: lang %q: use zh (either script), zh-Hans (Simplified), zh-Hant (Traditional) or en", c.Name, n.Value)
		}
	case PII:
		if n := f["pii"]; n != nil {
			if c.PIIKinds, err = p.strings(c, n, "pii"); err != nil {
				return err
			}
			for _, k := range c.PIIKinds {
				if !slices.Contains(piiKinds, k) {
					return p.errf(n, "criterion %q: pii %q: use some of %s", c.Name, k, strings.Join(piiKinds, ", "))
				}
			}
		}
	}
	return nil
}

// orNode is n, or the criterion's own line when the key is missing.
func orNode(n *yaml.Node, c *Criterion) *yaml.Node {
	return cmp.Or(n, &yaml.Node{Line: c.Line})
}

func (p *parser) inputs(c *Criterion, n *yaml.Node) ([]string, error) {
	if n == nil {
		return []string{InputQuestion, InputAnswer}, nil
	}
	in, err := p.strings(c, n, "inputs")
	if err != nil {
		return nil, err
	}
	for _, s := range in {
		if !slices.Contains(inputNames, s) {
			return nil, p.errf(n, "criterion %q: input %q: use some of %s", c.Name, s, strings.Join(inputNames, ", "))
		}
	}
	if !slices.Contains(in, InputAnswer) {
		return nil, p.errf(n, "criterion %q: inputs must include answer: the criterion judges the answer", c.Name)
	}
	return in, nil
}

// text reads a wording: a string, or a mapping of language to string.
func (p *parser) text(c *Criterion, n *yaml.Node, what string) (Text, error) {
	if n == nil {
		return nil, p.errf(orNode(nil, c), "criterion %q needs %s: what the judge is asked, as a string or {zh: …, en: …}", c.Name, what)
	}
	t := Text{}
	switch n.Kind {
	case yaml.ScalarNode:
		t[""] = strings.TrimSpace(n.Value)
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value != "zh" && k.Value != "en" {
				return nil, p.errf(k, "criterion %q: %s in %q: give the wording in zh and/or en", c.Name, what, k.Value)
			}
			if v.Kind != yaml.ScalarNode {
				return nil, p.errf(v, "criterion %q: %s.%s must be a string", c.Name, what, k.Value)
			}
			if s := strings.TrimSpace(v.Value); s != "" {
				t[k.Value] = s
			}
		}
	default:
		return nil, p.errf(n, "criterion %q: %s must be a string or {zh: …, en: …}", c.Name, what)
	}
	if t.In("en") == "" {
		return nil, p.errf(n, "criterion %q: %s is empty: say what the judge should check", c.Name, what)
	}
	return t, nil
}

// strings reads one string or a list of strings.
func (p *parser) strings(c *Criterion, n *yaml.Node, what string) ([]string, error) {
	if n == nil {
		return nil, p.errf(orNode(nil, c), "criterion %q needs %s", c.Name, what)
	}
	var out []string
	switch n.Kind {
	case yaml.ScalarNode:
		out = []string{n.Value}
	case yaml.SequenceNode:
		for _, v := range n.Content {
			if v.Kind != yaml.ScalarNode {
				return nil, p.errf(v, "criterion %q: each of %s must be a string", c.Name, what)
			}
			out = append(out, v.Value)
		}
	default:
		return nil, p.errf(n, "criterion %q: %s must be a string or a list of strings", c.Name, what)
	}
	for _, s := range out {
		if s == "" {
			return nil, p.errf(n, "criterion %q: %s holds an empty string, which every answer contains: remove it", c.Name, what)
		}
	}
	if len(out) == 0 {
		return nil, p.errf(n, "criterion %q: %s is empty", c.Name, what)
	}
	return out, nil
}

func (p *parser) matchFlags(c *Criterion, f map[string]*yaml.Node) error {
	if n := f["match"]; n != nil {
		switch n.Value {
		case "any":
		case "all":
			c.All = true
		default:
			return p.errf(n, "criterion %q: match %q: use any or all", c.Name, n.Value)
		}
	}
	if n := f["case_sensitive"]; n != nil {
		b, err := strconv.ParseBool(n.Value)
		if err != nil {
			return p.errf(n, "criterion %q: case_sensitive %q: use true or false", c.Name, n.Value)
		}
		c.CaseSensitive = b
	}
	return nil
}

func (p *parser) patterns(c *Criterion, f map[string]*yaml.Node) error {
	one, many := f["pattern"], f["patterns"]
	switch {
	case one != nil && many != nil:
		return p.errf(many, "criterion %q: give pattern or patterns, not both", c.Name)
	case one == nil && many == nil:
		return p.errf(orNode(nil, c), "criterion %q: %s needs pattern (a regular expression) or patterns (a list)", c.Name, c.Kind)
	}
	n := cmp.Or(many, one)
	var err error
	if c.Patterns, err = p.strings(c, n, "pattern"); err != nil {
		return err
	}
	if err := p.matchFlags(c, f); err != nil {
		return err
	}
	for _, pat := range c.Patterns {
		re, err := compilePattern(pat, c.CaseSensitive)
		if err != nil {
			msg := strings.TrimPrefix(err.Error(), "error parsing regexp: ")
			return p.errf(n, "criterion %q: pattern %q does not compile: %s (the syntax is Go's RE2: no look-arounds or back-references)", c.Name, pat, msg)
		}
		c.Compiled = append(c.Compiled, re)
	}
	return nil
}

// compilePattern compiles a criterion's expression for the folded answer:
// width-folded like the text it runs on, and case-insensitive unless the
// criterion says otherwise.
func compilePattern(pat string, caseSensitive bool) (*regexp.Regexp, error) {
	src := foldWidth(pat)
	if !caseSensitive {
		src = "(?i)" + src
	}
	return regexp.Compile(src)
}

// levels reads a rubric's scale: a mapping from each level's score to its
// description, written `1: …` or, as RAGAS writes it, `score1_description: …`.
func (p *parser) levels(c *Criterion, n *yaml.Node) error {
	if n == nil || n.Kind != yaml.MappingNode {
		return p.errf(orNode(n, c), "criterion %q: a rubric needs levels, a mapping from each score to its description (1: …, 2: …)", c.Name)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		key := strings.TrimSuffix(strings.TrimPrefix(k.Value, "score"), "_description")
		score, err := strconv.Atoi(key)
		if err != nil {
			return p.errf(k, "criterion %q: level %q: name each level by its whole-number score (1: …) or as score1_description", c.Name, k.Value)
		}
		if slices.ContainsFunc(c.Levels, func(l Level) bool { return l.Score == score }) {
			return p.errf(k, "criterion %q: level %d is described twice", c.Name, score)
		}
		d, err := p.text(c, n.Content[i+1], "level "+key)
		if err != nil {
			return err
		}
		c.Levels = append(c.Levels, Level{Score: score, Description: d})
	}
	if len(c.Levels) < 2 {
		return p.errf(n, "criterion %q: a rubric needs at least two levels", c.Name)
	}
	slices.SortFunc(c.Levels, func(a, b Level) int { return a.Score - b.Score })
	return nil
}
