package prompts

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestScanDraftAndReset(t *testing.T) {
	good := "Be strict.\n" + embeddedSource(t, TaskFaithfulnessStatements, "en")
	dir := writeFiles(t, map[string]string{
		FileName(TaskFaithfulnessStatements, "en"):               good,
		FileName(TaskFaithfulnessVerdicts, "zh"):                 "x\n{{if}}",
		FileName(TaskFaithfulnessStatements, "en") + DraftSuffix: "{{if}}",
	})
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "faithfulness_verdicts.zh.tmpl:2") {
		t.Fatalf("Load: %v", err)
	}
	s, problems, err := Scan(dir)
	if err != nil || len(problems) != 1 || problems[0].Task != TaskFaithfulnessVerdicts || problems[0].Lang != "zh" {
		t.Fatalf("Scan: %v %+v", err, problems)
	}
	if s.Hashes()[key(TaskFaithfulnessVerdicts, "zh")] != Embedded().Hashes()[key(TaskFaithfulnessVerdicts, "zh")] ||
		s.Hashes()[key(TaskFaithfulnessStatements, "en")] != hashText(good) {
		t.Fatal("Scan: the good override is not used or the broken one is")
	}
	// The draft is never loaded: the good override is in use.
	removed, err := Reset(dir, TaskFaithfulnessVerdicts, "zh")
	if err != nil || len(removed) != 1 || removed[0] != filepath.Join(dir, FileName(TaskFaithfulnessVerdicts, "zh")) {
		t.Fatalf("Reset: %v %v", removed, err)
	}
	if _, err := Load(dir); err != nil {
		t.Fatalf("after reset: %v", err)
	}
	if removed, err := Reset(dir, TaskFaithfulnessStatements, "en"); err != nil || len(removed) != 2 {
		t.Fatalf("Reset with a draft: %v %v", removed, err)
	}
	if _, err := Reset(dir, "bogus", "en"); err == nil {
		t.Fatal("Reset of an unknown task")
	}
	if !IsEmbeddedText([]byte(embeddedSource(t, TaskFaithfulnessStatements, "zh")), TaskFaithfulnessStatements, "zh") || IsEmbeddedText([]byte(good), TaskFaithfulnessStatements, "en") {
		t.Fatal("IsEmbeddedText")
	}
}
