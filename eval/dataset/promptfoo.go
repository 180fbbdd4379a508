package dataset

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// promptfoo keeps its test cases in a config's "tests" (promptfooconfig.yaml),
// or in tests files the config names by reference: "tests:
// file://tests.yaml", or a list mixing inline cases and such references.
// A reference is relative to the directory of the file that holds it and
// may name a directory (its tests files are read in name order) or a glob.
// Test cases keep their inputs under "vars"; the config's defaultTest.vars
// fill in what a case's own vars lack.

// refSite is where in the file being read a reference is, for messages.
type refSite struct {
	line int
	unit string
}

func (c *collector) refError(at refSite, msg string) *Error {
	return &Error{File: c.Name, Line: at.line, Unit: at.unit, Msg: msg}
}

// testsFileExts are the tests files a reference may name.
var testsFileExts = []string{"yaml", "yml", "json", "jsonl", "ndjson", "csv", "tsv"}

// maxRefDepth bounds a chain of references; the cycle check alone would
// let a chain through a thousand distinct files.
const maxRefDepth = 16

// withTestCases runs fn with the records it reads taken as promptfoo test
// cases: the records of a tests list or of a referenced tests file.
func (c *collector) withTestCases(fn func() error) error {
	saved := c.TestCases
	c.TestCases = true
	err := fn()
	c.TestCases = saved
	return err
}

// readTestsRef reads the tests files a reference names.
func (c *collector) readTestsRef(at refSite, spec string) error {
	files, err := c.refFiles(at, spec, testsFileExts)
	if err != nil {
		return err
	}
	for _, file := range files {
		if err := c.readRefFile(at, spec, file); err != nil {
			return err
		}
	}
	return nil
}

// refPath turns a reference into a path, relative ones joined to the
// directory of the file holding it.
func (c *collector) refPath(at refSite, spec string) (string, error) {
	s := strings.TrimSpace(spec)
	p, ok := strings.CutPrefix(s, read.FileScheme)
	if scheme, _, found := strings.Cut(s, "://"); !ok && found {
		return "", c.refError(at, fmt.Sprintf("tests reference %.200q: %s:// is not a local file — ragscope reads tests files from disk; download them and refer to them with file://", s, scheme))
	}
	if p == "" {
		return "", c.refError(at, fmt.Sprintf("tests reference %q names no file — write file://path/to/tests.yaml", s))
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(c.Name), p)
	}
	return p, nil
}

// refFiles lists the files a reference names: one file, the tests files of
// a directory, or a glob's matches, sorted. exts are the extensions read, without the dot.
func (c *collector) refFiles(at refSite, spec string, exts []string) ([]string, error) {
	p, err := c.refPath(at, spec)
	if err != nil {
		return nil, err
	}
	dir := filepath.Dir(c.Name)
	readable := func(name string) bool {
		return slices.Contains(exts, strings.TrimPrefix(strings.ToLower(filepath.Ext(name)), "."))
	}
	if strings.ContainsAny(p, "*?[") {
		matches, err := filepath.Glob(p)
		if err != nil {
			return nil, c.refError(at, fmt.Sprintf("tests reference %.200q: bad pattern: %v — fix the glob", spec, err))
		}
		var files []string
		for _, m := range matches {
			if st, err := os.Stat(m); err == nil && !st.IsDir() && readable(m) {
				files = append(files, m)
			}
		}
		if len(files) == 0 {
			return nil, c.refError(at, fmt.Sprintf("tests reference %.200q: no %s file matches %s (paths are relative to %s, the directory of %s) — fix the pattern",
				spec, read.OrList(exts), p, dir, c.Name))
		}
		return files, nil
	}
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, c.refError(at, fmt.Sprintf("tests reference %.200q: %s does not exist (paths are relative to %s, the directory of %s) — fix the path",
			spec, p, dir, c.Name))
	case err != nil:
		return nil, c.refError(at, fmt.Sprintf("tests reference %.200q: %v", spec, err))
	case st.IsDir():
		entries, err := os.ReadDir(p)
		if err != nil {
			return nil, c.refError(at, fmt.Sprintf("tests reference %.200q: %v", spec, err))
		}
		var files []string
		for _, e := range entries {
			if !e.IsDir() && readable(e.Name()) {
				files = append(files, filepath.Join(p, e.Name()))
			}
		}
		if len(files) == 0 {
			return nil, c.refError(at, fmt.Sprintf("tests reference %.200q: the directory %s holds no %s file", spec, p, read.OrList(exts)))
		}
		return files, nil
	}
	if !readable(p) {
		return nil, c.refError(at, fmt.Sprintf("tests reference %.200q: ragscope reads %s files here, not %s (test generators in JavaScript or Python are not run) — export the tests to one of those",
			spec, read.OrList(exts), filepath.Base(p)))
	}
	return []string{p}, nil
}

// readRefFile reads one referenced tests file into c, its records counted
// in its own lines and named by its own name.
func (c *collector) readRefFile(at refSite, spec, file string) error {
	abs := absPath(file)
	if i := slices.Index(c.Reading, abs); i >= 0 {
		chain := append(slices.Clone(c.Reading[i:]), abs)
		return c.refError(at, fmt.Sprintf("tests reference %.200q makes a cycle (%s) — remove the reference back", spec, strings.Join(chain, " → ")))
	}
	if len(c.Reading) > maxRefDepth {
		return c.refError(at, fmt.Sprintf("tests reference %.200q: references nest more than %d files deep — refer to the tests files from the config directly", spec, maxRefDepth))
	}
	f, err := os.Open(file)
	if err != nil {
		return c.refError(at, fmt.Sprintf("tests reference %.200q: %v", spec, err))
	}
	defer f.Close()
	name, unit, defaults, h := c.Name, c.Unit, c.Defaults, c.Hash
	c.Reading, c.Hash = append(c.Reading, abs), sha256.New()
	err = c.withTestCases(func() error {
		_, err := c.readFile(file, f, "")
		return err
	})
	c.RefSums = append(c.RefSums, c.Hash.Sum(nil))
	c.Reading = c.Reading[:len(c.Reading)-1]
	c.Name, c.Unit, c.Defaults, c.Hash = name, unit, defaults, h
	return err
}

// absPath is the absolute, symlink-free path of name for the cycle check,
// or name cleaned when it cannot be resolved (a name given to Read that is
// no file).
func absPath(name string) string {
	p, err := filepath.Abs(name)
	if err != nil {
		return filepath.Clean(name)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// defaultTestExts are the files a defaultTest reference may name.
var defaultTestExts = []string{"yaml", "yml", "json"}

// defaultVars reads a promptfoo config's defaultTest (a JSON value: an
// object, or a file:// reference to a YAML or JSON file holding one) and
// returns its vars.
func (c *collector) defaultVars(at refSite, raw json.RawMessage) (map[string]json.RawMessage, error) {
	switch read.KindOf(raw) {
	case "null":
		return nil, nil
	case "object":
		return c.defaultVarsOf(at, raw)
	case "string":
		var spec string
		if err := json.Unmarshal(raw, &spec); err != nil {
			return nil, c.refError(at, "defaultTest: "+read.JSONErrText(err))
		}
		files, err := c.refFiles(at, spec, defaultTestExts)
		if err != nil {
			return nil, err
		}
		if len(files) != 1 {
			return nil, c.refError(at, fmt.Sprintf("defaultTest reference %.200q names %d files — name one", spec, len(files)))
		}
		obj, err := c.readDefaultTestFile(at, spec, files[0])
		if err != nil {
			return nil, err
		}
		return c.defaultVarsOf(at, obj)
	}
	return nil, c.refError(at, fmt.Sprintf("defaultTest is %s — it must be a mapping (with vars) or a file:// reference", read.AKind(read.KindOf(raw))))
}

// defaultVarsOf takes the vars out of a defaultTest object.
func (c *collector) defaultVarsOf(at refSite, raw json.RawMessage) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, c.refError(at, "defaultTest is not an object — it must be a mapping (with vars) or a file:// reference")
	}
	v, ok := read.LookupKey(obj, "vars")
	if !ok || read.IsNull(v) {
		return nil, nil
	}
	if read.KindOf(v) != "object" {
		return nil, c.refError(at, fmt.Sprintf("defaultTest.vars is %s — ragscope reads defaultTest vars given inline as a mapping; write them out there", read.AKind(read.KindOf(v))))
	}
	var vars map[string]json.RawMessage
	if err := json.Unmarshal(v, &vars); err != nil {
		return nil, c.refError(at, "defaultTest.vars: "+read.JSONErrText(err))
	}
	return vars, nil
}

// readDefaultTestFile reads the file a defaultTest reference names, as
// JSON; its sha256 joins the dataset's.
func (c *collector) readDefaultTestFile(at refSite, spec, file string) (json.RawMessage, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, c.refError(at, fmt.Sprintf("defaultTest reference %.200q: %v", spec, err))
	}
	defer f.Close()
	h := sha256.New()
	data, err := readWhole(file, io.TeeReader(f, h), c.Limit)
	if err != nil {
		return nil, err
	}
	c.RefSums = append(c.RefSums, h.Sum(nil))
	if strings.EqualFold(filepath.Ext(file), ".json") {
		if !json.Valid(data) {
			var v any
			return nil, &Error{File: file, Msg: "invalid JSON: " + read.JSONErrText(json.Unmarshal(data, &v)) + " — fix the file"}
		}
		return data, nil
	}
	y, root, err := parseYAMLFile(file, data, c.Limit)
	if err != nil {
		return nil, err
	}
	if root == nil {
		return json.RawMessage("null"), nil
	}
	obj, err := y.toJSON(root, y.limit)
	if errors.As(err, new(*Error)) {
		return nil, err
	}
	if err != nil {
		return nil, &Error{File: file, Line: root.Line, Msg: "defaultTest: " + err.Error()}
	}
	return obj, nil
}
