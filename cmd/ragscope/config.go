package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The settings file holds defaults for `ragscope run` so a team does not
// retype them: the judge endpoint and models, the prompts directory, the
// database. Precedence: command-line flag, then environment variable, then
// the settings file, then the built-in default. The API key is never read
// from it (keep secrets in the environment).

// settingFlags maps a settings key to its flag and, where there is one, its
// environment variable (which wins over the file).
var settingFlags = map[string]struct{ flag, env string }{
	"base_url":             {"base-url", "OPENAI_BASE_URL"},
	"model":                {"model", "RAGSCOPE_MODEL"},
	"embedding_model":      {"embedding-model", "RAGSCOPE_EMBEDDING_MODEL"},
	"embedding_base_url":   {"embedding-base-url", "RAGSCOPE_EMBEDDING_BASE_URL"},
	"embedding_dimensions": {"embedding-dimensions", ""},
	"embedding_format":     {"embedding-format", ""},
	"api_type":             {"api-type", ""},
	"api_version":          {"api-version", ""},
	"response_format":      {"response-format", ""},
	"temperature":          {"temperature", ""},
	"strictness":           {"strictness", ""},
	"concurrency":          {"concurrency", ""},
	"request_timeout":      {"request-timeout", ""},
	"max_retries":          {"max-retries", ""},
	"max_retry_after":      {"max-retry-after", ""},
	"rpm":                  {"rpm", ""},
	"tpm":                  {"tpm", ""},
	"max_reply_bytes":      {"max-reply-bytes", ""},
	"max_record_bytes":     {"max-record-bytes", ""},
	"lang":                 {"lang", ""},
	"metrics":              {"metrics", ""},
	"prompts_dir":          {"prompts", "RAGSCOPE_PROMPTS"},
	"db":                   {"db", ""},
	"ascii":                {"ascii", "RUNEWIDTH_EASTASIAN"},
}

// settingsPath is --config, else RAGSCOPE_CONFIG, else
// $XDG_CONFIG_HOME/ragscope/config.json when it exists.
func settingsPath(explicit string) (path string, required bool) {
	if explicit != "" {
		return explicit, true
	}
	if p := os.Getenv("RAGSCOPE_CONFIG"); p != "" {
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
func applySettings(fs *flag.FlagSet, path string, required bool) error {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && !required {
		return nil
	}
	if err != nil {
		return errorf("settings: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return errorf("settings %s: not a JSON object: %v", path, err)
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if k == "api_key" {
			return errorf("settings %s: %q is not read from a file; put the key in OPENAI_API_KEY", path, k)
		}
		sf, ok := settingFlags[k]
		if !ok {
			return errorf("settings %s: unknown key %q (known: %s)", path, k, strings.Join(settingNames(), ", "))
		}
		if fs.Lookup(sf.flag) == nil || given[sf.flag] || (sf.env != "" && os.Getenv(sf.env) != "") {
			continue // not a flag of this command, or set by flag or environment
		}
		var v string
		switch x := raw[k].(type) {
		case string:
			v = x
		case json.Number:
			v = x.String()
		case bool:
			v = strconv.FormatBool(x)
		default:
			return errorf("settings %s: %q must be a string, number or boolean", path, k)
		}
		if err := fs.Set(sf.flag, v); err != nil {
			return errorf("settings %s: %q: %v", path, k, err)
		}
	}
	return nil
}

func settingNames() []string {
	names := make([]string, 0, len(settingFlags))
	for k := range settingFlags {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// parseArgs parses a command's flags wherever they stand among its
// arguments (`ragscope run data.jsonl --headless`), then fills the flags
// not given from the settings file, so every sub-command shares `run`'s
// database and prompts directory. When it fails it has told the user why
// (flag errors and -help are printed by the flag set) and returns the exit
// code.
func parseArgs(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, int, bool) {
	pos, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil, exitOK, false
	}
	if err != nil {
		return nil, exitUsage, false
	}
	// --config is read after the flags are parsed: before, it is still empty.
	config := ""
	if fl := fs.Lookup("config"); fl != nil {
		config = fl.Value.String()
	}
	if path, required := settingsPath(config); path != "" {
		if err := applySettings(fs, path, required); err != nil {
			fmt.Fprintln(stderr, "ragscope:", errText(err))
			return nil, exitUsage, false
		}
	}
	return pos, exitOK, true
}
