package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ragscope/ragscope/internal/check"
	"github.com/ragscope/ragscope/internal/exit"
	"github.com/ragscope/ragscope/internal/outfile"
)

// A judge profile is a named set of judge settings under "judges" in the
// settings file (docs/judges.md). A chosen profile is what the user asked
// for, so its keys win over the file's own keys and the environment; flags
// still win over it. It holds no key: api_key_env names the variable that does.

// judgeKeys are the settings a profile may hold: the judge's.
var judgeKeys = []string{
	"base_url", "model", "embedding_model", "embedding_base_url", "embedding_dimensions", "embedding_format",
	"api_type", "api_version", "response_format", "reasoning", "max_tokens", "temperature", "concurrency",
	"request_timeout", "max_retries", "max_retry_after", "rpm", "tpm", "max_reply_bytes",
}

// apiKeyEnv is the profile key that names the key's environment variable.
const apiKeyEnv = "api_key_env"

// annotationNoSettings marks a command that reads no settings file: judge
// add, whose profile is what its own command line says (a default
// profile's settings, and its key, must not leak into another).
const annotationNoSettings = "ragscope-no-settings"

// profileAnnotation marks the --judge flag that names a profile (calibrate
// has a --judge of its own: offline or llm).
const profileAnnotation = "ragscope-judge-profile"

// profileOf returns the chosen profile of the settings file's object raw:
// --judge (given on the command line or by RAGSCOPE_JUDGE) over the file's
// "judge". name is "" when none is chosen.
func profileOf(fs *pflag.FlagSet, raw map[string]any, path string) (name string, prof map[string]any, err error) {
	if fl := fs.Lookup("judge"); fl != nil && fl.Annotations[profileAnnotation] != nil {
		name = fl.Value.String()
	}
	if name == "" {
		if s, ok := raw["judge"].(string); ok {
			name = s
		} else if raw["judge"] != nil {
			return "", nil, fmt.Errorf("settings %s: \"judge\" must be the name of a profile under \"judges\"", path)
		}
	}
	profiles, err := judgeProfiles(raw, path)
	if err != nil || name == "" {
		return name, nil, err
	}
	prof, ok := profiles[name]
	if !ok {
		names := slices.Sorted(maps.Keys(profiles))
		if len(names) == 0 {
			return "", nil, fmt.Errorf("judge %q: %s has no \"judges\"; add one with ragscope judge add %s --base-url URL --model MODEL", name, path, name)
		}
		return "", nil, fmt.Errorf("judge %q is not in %s (profiles: %s)", name, path, strings.Join(names, ", "))
	}
	return name, prof, nil
}

// judgeProfiles reads and checks the file's "judges".
func judgeProfiles(raw map[string]any, path string) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	if raw["judges"] == nil {
		return out, nil
	}
	js, ok := raw["judges"].(map[string]any)
	if !ok {
		return nil, fmt.Errorf("settings %s: \"judges\" must be an object of named profiles", path)
	}
	for name, v := range js {
		p, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("settings %s: judges.%s must be an object of judge settings", path, name)
		}
		for k := range p {
			if k != apiKeyEnv && !slices.Contains(judgeKeys, k) {
				if k == "api_key" {
					return nil, fmt.Errorf("settings %s: judges.%s: the key is not read from a file; name its environment variable with %q", path, name, apiKeyEnv)
				}
				return nil, fmt.Errorf("settings %s: judges.%s: %q is not a judge setting (known: %s, %s)", path, name, k, strings.Join(judgeKeys, ", "), apiKeyEnv)
			}
		}
		out[name] = p
	}
	return out, nil
}

// applyProfile sets the flags of fs that the command line left unset
// (Changed: given, or set by the profile itself) from the chosen profile
// (nil: none).
func applyProfile(fs *pflag.FlagSet, name string, prof map[string]any, path string) error {
	for _, k := range slices.Sorted(maps.Keys(prof)) {
		if k == apiKeyEnv {
			env, _ := prof[k].(string)
			if env == "" {
				return fmt.Errorf("settings %s: judges.%s.%s must name an environment variable", path, name, k)
			}
			// The profile's key goes only to the profile's endpoint: a
			// --base-url given for another one does not take it along.
			if u, ok := prof["base_url"].(string); ok && fs.Changed("base-url") && fs.Lookup("base-url").Value.String() != u {
				continue
			}
			if fs.Lookup("api-key") != nil && !fs.Changed("api-key") {
				v := os.Getenv(env)
				if v == "" && !offlineAsked(fs) {
					return fmt.Errorf("judge %q: its key is read from $%s, which is not set", name, env)
				}
				// Set marks the key given, so that OPENAI_API_KEY does not
				// replace it; setKeyFrom says where it was read.
				if err := fs.Set("api-key", v); err != nil {
					return err
				}
				setKeyFrom(fs, v, env)
			}
			continue
		}
		flag, _ := settingFlag(k)
		if fs.Lookup(flag) == nil || fs.Changed(flag) {
			continue
		}
		if err := setSetting(fs, flag, prof[k], fmt.Sprintf("settings %s: judges.%s.%s", path, name, k)); err != nil {
			return err
		}
	}
	return nil
}

// offlineAsked reports whether fs asks for the offline judge, which needs no key.
func offlineAsked(fs *pflag.FlagSet) bool {
	fl := fs.Lookup("offline")
	return fl != nil && fl.Value.String() == "true"
}

// textFlags are the flags a settings key sets that take a path or a name,
// never a number (max_failing, a string flag, takes 3 or 10%).
var textFlags = []string{"db", "prompts", "criteria", "offline-lexicon", "junit", "prices", "baseline",
	"base-url", "model", "embedding-model", "embedding-base-url"}

// setSetting sets flag to a settings value; where names the value in
// errors.
func setSetting(fs *pflag.FlagSet, flag string, v any, where string) error {
	var text string
	switch x := v.(type) {
	case string:
		text = x
	case json.Number: // the settings file is decoded with UseNumber
		text = x.String()
	case bool:
		text = strconv.FormatBool(x)
	default:
		return fmt.Errorf("%s must be a string, number or boolean", where)
	}
	// A path or a name given as a number ("db": 5) is a mistake, not a
	// file named 5.
	if _, isText := v.(string); !isText && slices.Contains(textFlags, flag) {
		return fmt.Errorf("%s must be a string (in quotes), not %s", where, text)
	}
	if err := fs.Set(flag, text); err != nil {
		return fmt.Errorf("%s: %v", where, err)
	}
	settingOrigin["--"+flag] = where
	return nil
}

// judgeCommand is `ragscope judge`: the named judge profiles.
func (c *cli) judgeCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "judge",
		Short: "Named judge profiles in the settings file: add one after checking it, list them",
		Long:  `A judge profile is a named set of judge settings (base URL, model, embedding model, reasoning, ...) under "judges" in the settings file; --judge NAME picks one for run, check, estimate and watch, and "judge" in the file names the default.`,
	}
	cmd.AddCommand(c.judgeAddCommand(), c.judgeListCommand())
	return cmd
}

// judgeAddCommand is `ragscope judge add NAME [judge flags]`: check runs on
// the settings; when a run with them would work they are written as the
// profile NAME.
func (c *cli) judgeAddCommand() *cobra.Command {
	var f runFlags
	var keyEnv string
	var makeDefault, force bool
	cmd := &cobra.Command{
		Use:         "add NAME",
		Annotations: map[string]string{annotationNoSettings: "true"},
		Short:       "Check judge settings and save them as a named profile",
		Example: `ragscope judge add local --base-url http://localhost:11434/v1 --model qwen3:14b --embedding-model bge-m3 --reasoning off --default
DEEPSEEK_API_KEY=sk-... ragscope judge add deepseek --base-url https://api.deepseek.com/v1 --model deepseek-chat --api-key-env DEEPSEEK_API_KEY`,
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			if len(pos) != 1 || pos[0] == "" {
				return usageHint(c.stderr, cmd, "give the profile's NAME")
			}
			name := pos[0]
			if keyEnv != "" {
				f.APIKey = os.Getenv(keyEnv)
			}
			if err := f.Validate(); err != nil {
				return failedAsIs(c.stderr, "ragscope judge add", exit.UsageError{Err: err})
			}
			// The file must take the profile before the check is paid for.
			path, _ := settingsPath(f.config)
			if path == "" {
				return failedAsIs(c.stderr, "ragscope judge add", exit.Usagef("no settings file: pass --config FILE"))
			}
			raw, err := readSettingsObject(path)
			if err != nil {
				return failedAsIs(c.stderr, "ragscope judge add", exit.UsageError{Err: err})
			}
			if old, ok := raw["judges"].(map[string]any); ok && old[name] != nil {
				fmt.Fprintf(c.stderr, "ragscope judge add: %s has a judge %q: it is replaced once the check passes\n", path, name)
			}
			ctx, stop := interruptible()
			defer stop()
			if code := check.Run(ctx, &f.Config, c.stdout); code != exit.OK && !force {
				fmt.Fprintf(c.stderr, "ragscope judge add: %s not saved: the check above says what to change (--force saves it anyway)\n", name)
				return code
			}
			prof := map[string]any{}
			for _, k := range judgeKeys {
				name, _ := settingFlag(k)
				if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
					prof[k] = fl.Value.String()
				}
			}
			if keyEnv != "" {
				prof[apiKeyEnv] = keyEnv
			}
			if err := saveProfile(path, name, prof, makeDefault); err != nil {
				return failedAsIs(c.stderr, "ragscope judge add", err)
			}
			fmt.Fprintf(c.stdout, "saved judge %q in %s; use it with --judge %s\n", name, path, name)
			return exit.OK
		}),
	}
	addRunFlags(&f, cmd.Flags())
	cmd.Flags().StringVar(&keyEnv, "api-key-env", "", "the environment variable that holds this judge's API key (the key itself is never written)")
	cmd.Flags().BoolVar(&makeDefault, "default", false, "make it the default judge (\"judge\" in the settings file)")
	cmd.Flags().BoolVar(&force, "force", false, "save the profile even when the check fails")
	registerRunCompletions(cmd)
	return cmd
}

// judgeListCommand is `ragscope judge list`.
func (c *cli) judgeListCommand() *cobra.Command {
	var config string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the judge profiles of the settings file",
		RunE: c.action(func(cmd *cobra.Command, pos []string) int {
			path, _ := settingsPath(config)
			raw, err := readSettingsObject(path)
			var profiles map[string]map[string]any
			if err == nil {
				profiles, err = judgeProfiles(raw, path)
			}
			if err != nil {
				return failedAsIs(c.stderr, "ragscope judge list", exit.UsageError{Err: err})
			}
			if len(profiles) == 0 {
				fmt.Fprintf(c.stdout, "no judge profiles in %s; add one with ragscope judge add NAME --base-url URL --model MODEL\n", path)
				return exit.OK
			}
			def, _ := raw["judge"].(string)
			for _, n := range slices.Sorted(maps.Keys(profiles)) {
				mark := " "
				if n == def {
					mark = "*"
				}
				p := profiles[n]
				fmt.Fprintf(c.stdout, "%s %-12s %v  %v\n", mark, n, cmp.Or(p["model"], any("-")), cmp.Or(p["base_url"], any("-")))
			}
			return exit.OK
		}),
	}
	cmd.Flags().StringVar(&config, "config", "", "settings file (default $XDG_CONFIG_HOME/ragscope/config.json)")
	return cmd
}

// readSettingsObject reads the settings file's object; a file that does
// not exist is empty.
func readSettingsObject(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, err
	}
	raw, err := settingsObject(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return raw, nil
}

// saveProfile writes the profile into the settings file, keeping the rest
// of it, atomically.
func saveProfile(path, name string, prof map[string]any, makeDefault bool) error {
	if path == "" {
		return errors.New("no settings file: pass --config FILE")
	}
	raw, err := readSettingsObject(path)
	if err != nil {
		return err
	}
	js, _ := raw["judges"].(map[string]any)
	if js == nil {
		js = map[string]any{}
	}
	js[name] = prof
	raw["judges"] = js
	if makeDefault {
		raw["judge"] = name
	}
	b, err := json.MarshalIndent(raw, "", "  ")
	if err != nil {
		return err
	}
	return outfile.Write(path, append(b, '\n'))
}
