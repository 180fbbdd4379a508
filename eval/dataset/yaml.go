package dataset

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// A YAML file is read whole, as a document has no record boundaries to
// stream by. Each record becomes the JSON object it stands for, read as a
// JSON record is; the record limit holds for that JSON, which aliases
// (*name) can make far larger than the text the record spans.

// MaxYAMLBytes is the largest YAML file read, unless the record limit is
// larger: the file is held whole, its parsed tree some ten times its size.
const MaxYAMLBytes = 32 << 20

// maxYAMLDepth bounds the nesting of a record, aliases included.
const maxYAMLDepth = 1000

// readYAML reads a YAML file.
func readYAML(c *collector, r io.Reader) error {
	data, err := readWhole(c.Name, r, c.Limit)
	if err != nil {
		return err
	}
	y, root, err := parseYAMLFile(c.Name, data, c.Limit)
	if err != nil {
		return err
	}
	if root == nil {
		return read.NoSamplesError(c.Name)
	}
	y.c = c
	return y.readRoot(root)
}

// readWhole reads a file to be held whole, refusing one over the YAML size
// limit (or the record limit, if larger) without reading it all.
func readWhole(name string, r io.Reader, limit int64) ([]byte, error) {
	max := max(int64(MaxYAMLBytes), limit)
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > max {
		return nil, &Error{File: name, Msg: fmt.Sprintf("the YAML file is over %s, the most read — a YAML file is read whole; "+
			"convert it to JSON Lines, which streams (python -c 'import sys,json,yaml; [print(json.dumps(r, ensure_ascii=False)) for r in yaml.safe_load(sys.stdin)]' < in.yaml > out.jsonl), "+
			"or raise --max-record-bytes above its size", read.FmtSize(max))}
	}
	return data, nil
}

// yamlDoc is a parsed YAML file being turned into JSON, within the record
// limit for each value and a bound for the whole file.
type yamlDoc struct {
	c        *collector
	name     string
	size     int64 // the file's
	limit    int64
	expanded int64 // the JSON made from the file so far
	aliased  bool  // the value last converted went through an alias
}

var yamlLineRE = regexp.MustCompile(`(?s)^yaml: line (\d+): (.*)$`)

// parseYAMLFile parses data, one YAML document; root is its top node, nil
// when the document is empty (only comments, say).
func parseYAMLFile(name string, data []byte, limit int64) (y *yamlDoc, root *yaml.Node, err error) {
	if !utf8.Valid(data) {
		off := read.InvalidUTF8(data)
		return nil, nil, &Error{File: name, Line: 1 + bytes.Count(data[:off], []byte("\n")), Unit: read.UnitLine, Msg: "the file " + read.UTF8Error(data).Error()}
	}
	doc, second, err := decodeYAML(data)
	if err != nil {
		return nil, nil, yamlSyntaxError(name, err)
	}
	if second > 0 {
		return nil, nil, &Error{File: name, Line: second, Unit: read.UnitLine, Msg: "a second YAML document starts here — a dataset is one document; remove the \"---\" or split the file"}
	}
	y = &yamlDoc{name: name, size: int64(len(data)), limit: limit}
	if doc == nil || len(doc.Content) == 0 {
		return y, nil, nil
	}
	return y, doc.Content[0], nil
}

// decodeYAML parses the first document of data; second is the line a
// second one starts on, 0 if none. A panic of the parser on hostile input
// is recovered: a bad file is an error, never a crash.
func decodeYAML(data []byte) (doc *yaml.Node, second int, err error) {
	defer func() {
		if r := recover(); r != nil {
			doc, second, err = nil, 0, fmt.Errorf("yaml: the parser failed: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var n yaml.Node
	if err := dec.Decode(&n); err != nil {
		if err == io.EOF {
			return nil, 0, nil
		}
		return nil, 0, err
	}
	var next yaml.Node
	if err := dec.Decode(&next); err != io.EOF {
		if err != nil {
			return nil, 0, err
		}
		return &n, max(next.Line, 1), nil
	}
	return &n, 0, nil
}

// yamlParserProblems start the parser's (not the scanner's) messages,
// whose line, counted from 0, is where the collection holding the error
// starts.
var yamlParserProblems = []string{"did not find expected", "found undefined tag handle", "found duplicate", "found incompatible YAML document"}

// yamlSyntaxError reports a YAML syntax error at the line the parser gives.
func yamlSyntaxError(name string, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	for _, p := range yamlParserProblems {
		if strings.HasPrefix(msg, p) {
			line++
			msg += " in the block that starts on this line — check the indentation, dashes and quotes in it"
			break
		}
	}
	return &Error{File: name, Line: line, Unit: read.UnitLine, Msg: fmt.Sprintf("invalid YAML: %s; fix the file — a broken YAML file cannot be read past the error", msg)}
}

// errTooBig stops turning a value into JSON once it is over the bound.
var errTooBig = errors.New("over the record limit")

// toJSON turns a YAML node into the JSON value it stands for, refusing one
// over limit (the record limit, for a record) with errTooBig; all the JSON
// made for one file is bounded too, as aliases let a small file stand for a
// huge one: going over that is an *Error about the whole file, never a
// skippable record's.
func (y *yamlDoc) toJSON(n *yaml.Node, limit int64) (json.RawMessage, error) {
	var b bytes.Buffer
	y.aliased = false
	err := y.value(&b, n, 0, limit)
	y.expanded += int64(b.Len())
	if y.expanded > y.expandLimit() {
		return nil, &Error{File: y.name, Msg: fmt.Sprintf("the file's YAML aliases (*name) expand it to over %s — "+
			"a file this small cannot hold that much text; write the shared text out or use fewer aliases", read.FmtSize(y.expandLimit()))}
	}
	if err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// expandLimit bounds the JSON made from one file: far more than sharing a
// context among tests needs, far less than an alias bomb asks for.
func (y *yamlDoc) expandLimit() int64 {
	return max(64*y.size, 256<<20, 4*y.limit)
}

// limited is toJSON for a record or a column's entry: one over the limit
// comes back as o, measured whole with its largest part, unless aliases
// grow it (o.Size 0), whose whole size is not worth making.
func (y *yamlDoc) limited(n *yaml.Node) (raw json.RawMessage, o *read.Oversized, err error) {
	raw, err = y.toJSON(n, y.limit)
	if !errors.Is(err, errTooBig) {
		return raw, nil, err
	}
	o = &read.Oversized{}
	if y.aliased {
		return nil, o, nil
	}
	if raw, err = y.toJSON(n, y.expandLimit()); err != nil {
		return nil, nil, err
	}
	var z read.RecordSizer
	z.Write(raw)
	o.Size = int64(len(raw))
	o.Part, o.PartSize = z.Largest()
	return nil, o, nil
}

func (y *yamlDoc) value(b *bytes.Buffer, n *yaml.Node, depth int, limit int64) error {
	if depth > maxYAMLDepth {
		return fmt.Errorf("the value at line %d nests more than %d levels deep — flatten it", n.Line, maxYAMLDepth)
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			b.WriteString("null")
			break
		}
		y.aliased = true
		return y.value(b, n.Alias, depth+1, limit)
	case yaml.MappingNode:
		pairs, err := y.pairs(n, depth)
		if err != nil {
			return err
		}
		b.WriteByte('{')
		for i, p := range pairs {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(b, p.key)
			b.WriteByte(':')
			if err := y.value(b, p.value, depth+1, limit); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case yaml.SequenceNode:
		b.WriteByte('[')
		for i, item := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := y.value(b, item, depth+1, limit); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case yaml.ScalarNode:
		writeScalar(b, n)
	default:
		b.WriteString("null")
	}
	if int64(b.Len()) > limit {
		return errTooBig
	}
	return nil
}

// resolveAlias follows aliases to the node they name; each counts as a
// level of nesting, so an alias chain cannot run on unbounded.
func resolveAlias(n *yaml.Node, depth int) (*yaml.Node, int) {
	for n.Kind == yaml.AliasNode && n.Alias != nil && depth <= maxYAMLDepth {
		n, depth = n.Alias, depth+1
	}
	return n, depth
}

// writeScalar writes a YAML scalar as JSON: a number only when its YAML
// spelling is a JSON number (an id keeps its spelling), else its text.
func writeScalar(b *bytes.Buffer, n *yaml.Node) {
	switch n.ShortTag() {
	case "!!null":
		b.WriteString("null")
		return
	case "!!bool":
		b.WriteString(strconv.FormatBool(slices.Contains([]string{"true", "yes", "on", "y"}, strings.ToLower(n.Value))))
		return
	case "!!int", "!!float":
		if v := n.Value; v != "" && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9')) && json.Valid([]byte(v)) {
			b.WriteString(v)
			return
		}
	}
	writeJSONString(b, n.Value)
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // cannot fail for a string; the file was checked to be UTF-8
	b.Write(enc)
}

// yamlPair is one entry of a mapping.
type yamlPair struct {
	key   string
	value *yaml.Node
}

// pairs lists a mapping's entries with its merge keys (<<: *base) applied,
// its own entries winning, then earlier merges; a repeated or non-text key
// is an error.
func (y *yamlDoc) pairs(n *yaml.Node, depth int) ([]yamlPair, error) {
	var own, merged []yamlPair
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, _ := resolveAlias(n.Content[i], depth)
		v := n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, fmt.Errorf("the key at line %d is %s — keys must be plain text", k.Line, yamlKind(k))
		}
		if k.ShortTag() == "!!merge" {
			m, err := y.merge(v, depth)
			if err != nil {
				return nil, err
			}
			merged = append(merged, m...)
			continue
		}
		if first, dup := seen[k.Value]; dup {
			return nil, fmt.Errorf("the key %.100q at line %d repeats the one at line %d — remove one", k.Value, n.Content[i].Line, first.Line)
		}
		seen[k.Value] = n.Content[i]
		own = append(own, yamlPair{k.Value, v})
	}
	for _, p := range merged {
		if _, dup := seen[p.key]; !dup {
			seen[p.key] = nil
			own = append(own, p)
		}
	}
	return own, nil
}

// merge returns the entries a merge key's mapping (or list of them) brings.
func (y *yamlDoc) merge(v *yaml.Node, depth int) ([]yamlPair, error) {
	v, depth = resolveAlias(v, depth+1)
	if depth > maxYAMLDepth {
		return nil, fmt.Errorf("the merge at line %d nests more than %d levels deep", v.Line, maxYAMLDepth)
	}
	items, wrong := []*yaml.Node{v}, "holds %s — it takes a mapping or a list of mappings"
	if v.Kind == yaml.SequenceNode {
		items, wrong = v.Content, "lists %s — it takes mappings"
	}
	var out []yamlPair
	for _, item := range items {
		m, d := resolveAlias(item, depth)
		if m.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("the merge key (<<) at line %d "+wrong, item.Line, yamlKind(m))
		}
		ps, err := y.pairs(m, d)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

// yamlKind names a node's kind as users know it.
func yamlKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return cmp.Or(scalarKinds[n.ShortTag()], "a string")
	}
	return "an alias"
}

// scalarKinds name the scalars that are not strings, by tag.
var scalarKinds = map[string]string{"!!null": "null", "!!int": "a number", "!!float": "a number", "!!bool": "a boolean"}

// lookup finds the key node and value of key among a mapping's own entries.
func lookup(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if kn := m.Content[i]; kn.Kind == yaml.ScalarNode && kn.Value == key {
			return kn, m.Content[i+1]
		}
	}
	return nil, nil
}

func (y *yamlDoc) errorAt(n *yaml.Node, msg string) *Error {
	return &Error{File: y.name, Line: n.Line, Unit: read.UnitLine, Msg: msg}
}

// readRoot reads the records of a YAML file by its top node.
func (y *yamlDoc) readRoot(root *yaml.Node) error {
	switch root.Kind {
	case yaml.SequenceNode:
		return y.readList(root, false)
	case yaml.MappingNode:
		return y.readMapping(root)
	}
	return y.errorAt(root, fmt.Sprintf("the file holds %s — expected a list of records (RAGAS rows or promptfoo test cases), "+
		"a mapping with tests: (promptfoo) or samples:, or a mapping of lists (one per field)", yamlKind(root)))
}

// readList reads the items of a list as records; in a tests list a
// string is a reference to a tests file.
func (y *yamlDoc) readList(seq *yaml.Node, tests bool) error {
	for _, item := range seq.Content {
		if tests {
			if n, _ := resolveAlias(item, 0); n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
				if err := y.c.readTestsRef(refSite{item.Line, read.UnitLine}, n.Value); err != nil {
					return err
				}
				continue
			}
		}
		if err := y.record(item); err != nil {
			return err
		}
	}
	return nil
}

// record reads one record.
func (y *yamlDoc) record(item *yaml.Node) error {
	c := y.c
	line := item.Line
	n, _ := resolveAlias(item, 0)
	if n.Kind != yaml.MappingNode {
		return c.Bad(line, "", fmt.Sprintf("is %s, not a mapping — each record must be a mapping, such as a promptfoo test case "+
			"(vars: {question: ..., answer: ...}) or a RAGAS row (user_input: ..., response: ...)", yamlKind(n)))
	}
	raw, o, err := y.limited(n)
	switch {
	case errors.As(err, new(*Error)):
		return err
	case err != nil:
		return c.Bad(line, "", err.Error())
	case o != nil && o.Size == 0:
		return c.Bad(line, "", fmt.Sprintf("the record grows over the limit of %s per record once read "+
			"(YAML aliases, *name, repeat what they point to) — raise the limit with --max-record-bytes", read.FmtSize(c.Limit)))
	case o != nil:
		return c.TooBigRecord(line, *o)
	}
	rec := &read.JSONRecord{}
	if err := json.Unmarshal(raw, &rec.Obj); err != nil {
		return fmt.Errorf("%s:%d: internal error: the record did not convert to JSON: %w", y.name, line, err)
	}
	return c.FromRecord(line, rec)
}

// readMapping reads a top-level mapping: a promptfoo config or tests file,
// records under samples:, or a column-oriented mapping of lists.
func (y *yamlDoc) readMapping(m *yaml.Node) error {
	c := y.c
	testsKey, tests := lookup(m, "tests")
	samplesKey, samples := lookup(m, "samples")
	switch {
	case tests != nil && samples != nil:
		return y.errorAt(samplesKey, fmt.Sprintf("has both tests: (line %d) and samples: (line %d) — keep one list of records", testsKey.Line, samplesKey.Line))
	case tests != nil:
		saved := c.Defaults
		defer func() { c.Defaults = saved }()
		if dtKey, dt := lookup(m, "defaultTest"); dt != nil {
			raw, err := y.toJSON(dt, y.limit)
			if errors.As(err, new(*Error)) {
				return err
			}
			if err != nil {
				return y.errorAt(dtKey, "defaultTest: "+err.Error())
			}
			if c.Defaults, err = c.defaultVars(refSite{dtKey.Line, read.UnitLine}, raw); err != nil {
				return err
			}
		}
		return c.withTestCases(func() error { return y.readTests(tests) })
	case samples != nil:
		if n, _ := resolveAlias(samples, 0); n.Kind == yaml.SequenceNode {
			return y.readList(n, false)
		}
		return y.errorAt(samplesKey, fmt.Sprintf("samples: holds %s — it must be a list of records", yamlKind(samples)))
	}
	if k := y.recordKey(m); k != nil {
		return y.errorAt(k, fmt.Sprintf("the file holds one record (a mapping with %s), not a list of records — "+
			"put \"- \" before its first key and indent the rest to make it a list of one, or list the records under tests:", read.SanitizeKey(k.Value)))
	}
	return y.readColumns(m)
}

// recordKey is a key showing a top-level mapping to be one record, not a
// mapping of lists: vars, or a field's name not holding a list.
func (y *yamlDoc) recordKey(m *yaml.Node) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if v, _ := resolveAlias(m.Content[i+1], 0); v.Kind == yaml.SequenceNode {
			continue
		}
		if k.Value == "vars" {
			return k
		}
		for f := range read.NFields {
			if read.Index(y.c.Cols.Names[f], k.Value) >= 0 {
				return k
			}
		}
	}
	return nil
}

// readTests reads the value of tests: a list of test cases and
// references, or one reference.
func (y *yamlDoc) readTests(v *yaml.Node) error {
	n, _ := resolveAlias(v, 0)
	switch {
	case n.Kind == yaml.SequenceNode:
		return y.readList(n, true)
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null":
		return nil
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str":
		return y.c.readTestsRef(refSite{v.Line, read.UnitLine}, n.Value)
	}
	return y.errorAt(v, fmt.Sprintf("tests: holds %s — it must be a list of test cases, a file:// reference to a tests file, or a list mixing both", yamlKind(n)))
}

// readColumns reads a mapping of lists, one per field, entry i of each
// being sample i (a Hugging Face dataset's to_dict, in YAML).
func (y *yamlDoc) readColumns(m *yaml.Node) error {
	var keys []string
	var cols []read.Column
	pairs, err := y.pairs(m, 0)
	if err != nil {
		return y.errorAt(m, err.Error())
	}
	for _, p := range pairs {
		keys = append(keys, p.key)
		seq, _ := resolveAlias(p.value, 0)
		if seq.Kind != yaml.SequenceNode {
			continue
		}
		col := read.Column{Key: p.key}
		for _, item := range seq.Content {
			raw, o, err := y.limited(item)
			switch {
			case errors.As(err, new(*Error)):
				return err
			case err != nil:
				return y.errorAt(item, err.Error())
			case o != nil:
				// Grown by aliases, it is only known to be over.
				o.Size = max(o.Size, y.limit+1)
			}
			col.Cells = append(col.Cells, read.Cell{Raw: raw, Over: o})
		}
		cols = append(cols, col)
	}
	return y.c.FromColumns(keys, cols)
}

// looksYAML reports whether a file's first line that is not blank or a
// comment starts a YAML document, list item or "key:" (no CSV delimiter
// in the key), rather than CSV.
func looksYAML(head []byte) bool {
	for len(head) > 0 {
		var line []byte
		line, head, _ = bytes.Cut(head, []byte("\n"))
		t := bytes.TrimRight(line, " \t\r")
		if len(bytes.TrimSpace(t)) == 0 || t[0] == '#' {
			continue
		}
		switch {
		case bytes.Equal(t, []byte("---")), bytes.HasPrefix(t, []byte("--- ")), bytes.HasPrefix(t, []byte("%YAML")):
			return true
		case bytes.Equal(t, []byte("-")), bytes.HasPrefix(t, []byte("- ")):
			return true
		}
		i := bytes.IndexByte(t, ':')
		if i <= 0 || bytes.ContainsAny(t[:i], ",;\t\"'") {
			return false
		}
		return i == len(t)-1 || t[i+1] == ' '
	}
	return false
}
