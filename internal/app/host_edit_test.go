package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
	"github.com/ragscope/ragscope/prompts"
)

func newEditHost(t *testing.T, pdir string) *Host {
	t.Helper()
	srv := fakejudge.New(fakejudge.Generic)
	t.Cleanup(srv.Close)
	h := NewHost(newTestSession(t, srv, smallDataset(t, 1), pdir))
	if h == nil {
		t.Fatal("no host")
	}
	return h
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func TestBrokenEditIsKeptInDraft(t *testing.T) {
	pdir := t.TempDir()
	h := newEditHost(t, pdir)
	const task, lang = prompts.TaskFaithfulnessVerdicts, "en"
	final := filepath.Join(pdir, prompts.FileName(task, lang))
	draft := final + prompts.DraftSuffix
	path, err := h.EditPath(task, lang)
	if err != nil || path != final {
		t.Fatalf("EditPath: %s %v", path, err)
	}
	src, _ := os.ReadFile(path)
	broken := append([]byte("{{if}}\n"), src...)
	os.WriteFile(path, broken, 0o600)
	sample := &eval.Result{Question: "q", Answer: "a", Contexts: []string{"c"}, Reference: "r"}
	err = h.Reload(sample)
	if err == nil || !strings.Contains(err.Error(), "your edit is kept in "+draft+" — press e to fix it") {
		t.Fatalf("Reload: %v", err)
	}
	if exists(final) {
		t.Fatal("the broken override file is still where runs load it")
	}
	if b, _ := os.ReadFile(draft); string(b) != string(broken) {
		t.Fatalf("draft %q", b)
	}
	if _, err := LoadPromptsFrom(pdir, "--prompts"); err != nil {
		t.Fatalf("a later run cannot load the directory: %v", err)
	}
	// e goes on from the broken edit; a fix becomes the override file.
	if path, err = h.EditPath(task, lang); err != nil || path != final {
		t.Fatalf("EditPath after a broken edit: %s %v", path, err)
	}
	if b, _ := os.ReadFile(final); string(b) != string(broken) {
		t.Fatalf("the editor does not get the broken edit back: %q", b)
	}
	os.WriteFile(final, append([]byte("Be strict.\n"), src...), 0o600)
	if err := h.Reload(sample); err != nil {
		t.Fatal(err)
	}
	if exists(draft) {
		t.Fatal("the draft is left after the fix")
	}
	if b, _ := os.ReadFile(final); !strings.HasPrefix(string(b), "Be strict.") {
		t.Fatalf("override %q", b)
	}
	if in := h.Prompts(); !strings.Contains(findInfo(in, task, lang).Source, prompts.SourceOverride) {
		t.Fatalf("in use: %+v", findInfo(in, task, lang))
	}

	// A broken edit of an existing override puts the override back.
	good, _ := os.ReadFile(final)
	path, _ = h.EditPath(task, lang)
	os.WriteFile(path, []byte("{{.Nope}}"), 0o600)
	if err := h.Reload(nil); err == nil {
		t.Fatal("a broken edit was accepted")
	}
	if b, _ := os.ReadFile(final); string(b) != string(good) {
		t.Fatalf("override not restored: %q", b)
	}
	if b, _ := os.ReadFile(draft); string(b) != "{{.Nope}}" {
		t.Fatalf("draft %q", b)
	}
	// A draft edited back to the override text is dropped.
	path, _ = h.EditPath(task, lang)
	os.WriteFile(path, good, 0o600)
	if err := h.Reload(nil); err != nil || exists(draft) || !exists(final) {
		t.Fatalf("undone draft: %v, draft %v", err, exists(draft))
	}
}

func findInfo(list []prompts.Info, task, lang string) prompts.Info {
	for _, in := range list {
		if in.Task == task && in.Lang == lang {
			return in
		}
	}
	return prompts.Info{}
}

func TestUnchangedEditLeavesNoOverride(t *testing.T) {
	pdir := t.TempDir()
	h := newEditHost(t, pdir)
	path, err := h.EditPath(prompts.TaskContextRecallClassifications, "zh")
	if err != nil || !exists(path) {
		t.Fatalf("EditPath: %s %v", path, err)
	}
	if err := h.Reload(nil); err != nil {
		t.Fatal(err)
	}
	if exists(path) {
		t.Fatal("an edit that changed nothing left a copy of the built-in text")
	}
	// So does a draft edited back to the built-in text.
	os.WriteFile(path+prompts.DraftSuffix, []byte("{{if}}"), 0o600)
	if p, _ := h.EditPath(prompts.TaskContextRecallClassifications, "zh"); p != path {
		t.Fatalf("EditPath %s, want %s", p, path)
	}
	src, _ := prompts.Embedded().Source(prompts.TaskContextRecallClassifications, "zh")
	os.WriteFile(path, []byte(src), 0o600)
	if err := h.Reload(nil); err != nil || exists(path) || exists(path+prompts.DraftSuffix) {
		t.Fatalf("%v, left: %v %v", err, exists(path), exists(path+prompts.DraftSuffix))
	}
}

// d in the prompt list: the override and its draft go, the built-in text
// is in use again, and the rest of the directory stays as it was.
func TestResetPrompt(t *testing.T) {
	const task, lang = prompts.TaskFaithfulnessVerdicts, "zh"
	builtIn := findInfo(prompts.Embedded().List(), task, lang)
	tests := []struct {
		name    string
		setup   func(t *testing.T, h *Host, pdir string) // leaves task.lang overridden
		wantErr string
	}{
		{name: "an override in use", setup: func(t *testing.T, h *Host, pdir string) {
			editTo(t, h, task, lang, "Be strict.\n")
		}},
		{name: "an override and a broken draft", setup: func(t *testing.T, h *Host, pdir string) {
			editTo(t, h, task, lang, "Be strict.\n")
			path, _ := h.EditPath(task, lang)
			os.WriteFile(path, []byte("{{if}}"), 0o600)
			if err := h.Reload(nil); err == nil {
				t.Fatal("the broken edit was accepted")
			}
		}},
		{name: "an edit open in the editor", setup: func(t *testing.T, h *Host, pdir string) {
			editTo(t, h, task, lang, "Be strict.\n")
			h.EditPath(task, lang)
		}},
		{name: "another override is broken", wantErr: "is reset on disk, but the prompts in use stay as they were",
			setup: func(t *testing.T, h *Host, pdir string) {
				editTo(t, h, task, lang, "Be strict.\n")
				os.WriteFile(filepath.Join(pdir, prompts.FileName(prompts.TaskContextRecallClassifications, "en")), []byte("{{.Nope}}"), 0o600)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pdir := t.TempDir()
			h := newEditHost(t, pdir)
			tt.setup(t, h, pdir)
			if in := findInfo(h.Prompts(), task, lang); in.Source != prompts.SourceOverride {
				t.Fatalf("before the reset %+v, want the override in use", in)
			}
			err := h.ResetPrompt(task, lang)
			final := filepath.Join(pdir, prompts.FileName(task, lang))
			if exists(final) || exists(final+prompts.DraftSuffix) {
				t.Fatalf("left on disk: override %v, draft %v", exists(final), exists(final+prompts.DraftSuffix))
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), ".Nope") {
					t.Fatalf("error %v, want %q naming the broken file", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if in := findInfo(h.Prompts(), task, lang); in != builtIn {
				t.Fatalf("after the reset %+v, want the built-in %+v", in, builtIn)
			}
			// The next edit starts from the built-in text, not the old edit.
			path, err := h.EditPath(task, lang)
			if err != nil {
				t.Fatal(err)
			}
			src, _ := prompts.Embedded().Source(task, lang)
			if b, _ := os.ReadFile(path); string(b) != src {
				t.Fatalf("the next edit starts from %q", b)
			}
		})
	}
}

func TestResetPromptRefusals(t *testing.T) {
	// No --prompts, and the default directory not created yet.
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	h := newEditHost(t, "")
	if err := h.ResetPrompt(prompts.TaskFaithfulnessVerdicts, "en"); err != nil {
		t.Fatalf("reset with no override directory: %v", err)
	}
	if exists(DefaultPromptsDir()) {
		t.Fatal("the reset created the override directory")
	}
	if in := findInfo(h.Prompts(), prompts.TaskFaithfulnessVerdicts, "en"); in.Source != prompts.SourceEmbedded {
		t.Fatalf("in use %+v", in)
	}
	if err := h.ResetPrompt("faithfulness", "en"); err == nil || !strings.Contains(err.Error(), prompts.TaskFaithfulnessVerdicts) {
		t.Fatalf("an unknown task: %v, want the valid ones listed", err)
	}
	if err := (StoredHost{Why: errStoredRun}).ResetPrompt(prompts.TaskFaithfulnessVerdicts, "en"); err == nil || !strings.Contains(err.Error(), "ragscope run") {
		t.Fatalf("a stored run: %v", err)
	}
}

// editTo edits task.lang to start with prefix and puts it into use.
func editTo(t *testing.T, h *Host, task, lang, prefix string) {
	t.Helper()
	path, err := h.EditPath(task, lang)
	if err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(path)
	os.WriteFile(path, append([]byte(prefix), src...), 0o600)
	if err := h.Reload(nil); err != nil {
		t.Fatal(err)
	}
}
