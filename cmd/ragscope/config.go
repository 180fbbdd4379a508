package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"
)

// The settings file holds a team's defaults for the flags. Precedence:
// command-line flag, environment variable, settings file, built-in default.
// The API key is never read from it (secrets stay in the environment).

// settingKeys are the keys of the settings file: a judge profile's and the
// others. Each sets the flag of its name with "-" for "_", but prompts_dir,
// which sets --prompts.
var settingKeys = slices.Concat(judgeKeys, []string{
	"strictness", "ac_weights", "fc_mode", "ns_mode", "history_support", "pass", "max_record_bytes", "lang",
	"offline_lexicon", "metrics", "criteria", "prompts_dir", "db", "ascii", "fail_under", "fail_under_sample",
	"fail_under_conversation", "max_failing", "junit", "prices", "confirm_over", "baseline", "max_drop",
	"max_regressed", "regress_margin",
})

// settingFlag is the flag a settings key sets; false for no such key.
func settingFlag(key string) (string, bool) {
	switch {
	case !slices.Contains(settingKeys, key):
		return "", false
	case key == "prompts_dir":
		return "prompts", true
	}
	return strings.ReplaceAll(key, "_", "-"), true
}

// flagEnv is the environment variable of each flag that has one: it is
// the flag's default, so it wins over the settings file.
var flagEnv = map[string]string{
	"base-url":           "OPENAI_BASE_URL",
	"api-key":            "OPENAI_API_KEY",
	"model":              "RAGSCOPE_MODEL",
	"embedding-model":    "RAGSCOPE_EMBEDDING_MODEL",
	"embedding-base-url": "RAGSCOPE_EMBEDDING_BASE_URL",
	"prompts":            "RAGSCOPE_PROMPTS",
	"prices":             "RAGSCOPE_PRICES",
	"ascii":              "RUNEWIDTH_EASTASIAN",
	"config":             "RAGSCOPE_CONFIG",
	"judge":              "RAGSCOPE_JUDGE",
}

// noteEnv ends the help text of each flag of fs that has an environment
// variable with its name, so help, completion and the man page show it.
func noteEnv(fs *pflag.FlagSet) {
	fs.VisitAll(func(f *pflag.Flag) {
		if env := flagEnv[f.Name]; env != "" {
			if f.Value.Type() == "bool" {
				env += "=1"
			}
			f.Usage += " [$" + env + "]"
		}
	})
}

// settingsPath is --config, else RAGSCOPE_CONFIG, else
// $XDG_CONFIG_HOME/ragscope/config.json when it exists.
func settingsPath(explicit string) (path string, required bool) {
	if p := cmp.Or(explicit, os.Getenv("RAGSCOPE_CONFIG")); p != "" {
		return p, true
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", false
	}
	return filepath.Join(dir, "ragscope", "config.json"), false
}

// applySettings fills the flags not given on the command line (nor by their
// environment variable) from the settings file.
func applySettings(fs *pflag.FlagSet, path string, required bool) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !required {
		if fl := fs.Lookup("judge"); fl != nil && fl.Annotations[profileAnnotation] != nil && fl.Value.String() != "" {
			return fmt.Errorf("judge %q: there is no settings file %s; add the profile with ragscope judge add %s --base-url URL --model MODEL", fl.Value.String(), path, fl.Value.String())
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("settings: %v", err)
	}
	raw, err := settingsObject(b)
	if err != nil {
		return fmt.Errorf("settings %s: %v", path, err)
	}
	// A profile's settings are the file's most precise: they are set first,
	// and then count as given (Changed), so that the file's own top-level
	// keys do not change them.
	name, prof, err := profileOf(fs, raw, path)
	if err == nil {
		err = applyProfile(fs, name, prof, path)
	}
	if err != nil {
		return err
	}
	for _, k := range slices.Sorted(maps.Keys(raw)) {
		if k == "judge" || k == "judges" {
			continue // read above
		}
		if k == "api_key" {
			return fmt.Errorf("settings %s: %q is not read from a file; put the key in OPENAI_API_KEY", path, k)
		}
		name, ok := settingFlag(k)
		if !ok {
			return fmt.Errorf("settings %s: unknown key %q (known: %s)", path, k, strings.Join(slices.Sorted(slices.Values(settingKeys)), ", "))
		}
		if env := flagEnv[name]; fs.Lookup(name) == nil || fs.Changed(name) || (env != "" && os.Getenv(env) != "") {
			continue // not a flag of this command, or set by flag or environment
		}
		if err := setSetting(fs, name, raw[k], fmt.Sprintf("settings %s: %q", path, k)); err != nil {
			return err
		}
	}
	return nil
}

// settingsObject reads the settings file's one JSON object. A UTF-8 BOM
// (which some editors write) is skipped, as datasets skip it; a key given
// twice is refused, where a plain decode keeps the last one silently and
// the first, which the user may be reading, does nothing.
func settingsObject(b []byte) (map[string]any, error) {
	b = bytes.TrimPrefix(b, []byte("\ufeff"))
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	notObject := func(err error) error {
		// Where: a missing comma is found at the next key, a line on.
		off := dec.InputOffset()
		if se := (*json.SyntaxError)(nil); errors.As(err, &se) {
			off = se.Offset
		}
		before := b[:min(int(off), len(b))]
		line := 1 + bytes.Count(before, []byte("\n"))
		col := 1 + utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
		return fmt.Errorf("line %d, column %d: not a JSON object: %v", line, col, err)
	}
	if tok, err := dec.Token(); err != nil {
		return nil, notObject(err)
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, notObject(fmt.Errorf("it starts with %v", tok))
	}
	raw := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, notObject(err)
		}
		k := tok.(string) // inside an object, Token gives a key here
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, notObject(err)
		}
		if _, dup := raw[k]; dup {
			return nil, fmt.Errorf("%q is given twice; keep one", k)
		}
		raw[k] = v
	}
	if _, err := dec.Token(); err != nil {
		return nil, notObject(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("not a JSON object: more follows the object; a settings file holds one")
	}
	return raw, nil
}

// loadSettings fills a command's flags that the command line and the
// environment left unset from the settings file; a command without such a
// flag (help, completion) does not read it at all.
func loadSettings(fs *pflag.FlagSet) error {
	uses := slices.ContainsFunc(settingKeys, func(k string) bool {
		name, _ := settingFlag(k)
		return fs.Lookup(name) != nil
	})
	if !uses {
		return nil
	}
	// --config is read after the flags are parsed: before, it is still empty.
	config, _ := fs.GetString("config") // "" for a command without it
	path, required := settingsPath(config)
	if path == "" {
		return nil
	}
	return applySettings(fs, path, required)
}
