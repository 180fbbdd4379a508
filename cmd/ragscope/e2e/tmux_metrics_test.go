package e2e

import (
	"strings"
	"testing"
)

// A run of answer correctness through the real binary: its column in the
// table, and the sample's page with the classes and the formula with its
// numbers (the offline judge scores it with its support test).
func TestTmuxAnswerCorrectnessDetail(t *testing.T) {
	p := startTmux(t, 140, 60, "testdata/demo.jsonl", "--offline", "--metrics", "answer_correctness,answer_similarity")
	s := p.waitForText("finished in", "14/14", " AC ", " AS ")
	if !strings.Contains(s, "我们公司从小规模") {
		t.Fatalf("the taxpayer sample is not listed:\n%s", s)
	}
	p.keys("enter")
	s = p.waitForText("F1 = 2*TP / (2*TP + FP + FN) = 2*0 / (2*0 + 2 + 3) = 0.000", "FP: answer statements the reference does not support (2)", "FN: reference statements missing from the answer (3)")
	if !strings.Contains(s, "score = (0.75*F1 + 0.25*similarity) / (0.75 + 0.25) = (0.75*0.000 + 0.25*0.548) / 1 = 0.137") {
		t.Fatalf("the score's formula with its numbers is not on the page:\n%s", s)
	}
	if code := p.quit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// A run of factual correctness, context entity recall and noise
// sensitivity through the real binary and the offline judge: the three
// columns (noise sensitivity unsupported by that judge, marked unsup and
// not failed), and a sample's page with the claims' formulas, the entity
// recall with its numbers and the reason noise sensitivity has none.
func TestTmuxFactualCorrectnessDetail(t *testing.T) {
	p := startTmux(t, 140, 60, "testdata/demo.jsonl", "--offline", "--metrics", "factual_correctness,context_entity_recall,noise_sensitivity")
	s := p.waitForText("finished in", "14/14", " FC ", " ER ", " NS ")
	if !strings.Contains(s, "unsup") || strings.Contains(s, " err ") {
		t.Fatalf("noise sensitivity is not shown unsupported:\n%s", s)
	}
	p.keys("j", "Enter", "1")
	p.waitForText("1 factual_correctness", "answer claims checked against the reference: 2 TP, 1 FP",
		"precision = TP / (TP + FP) = 2 / (2 + 1) = 0.667", "recall = TP / (TP + FN) = 2 / (2 + 0) = 1.000",
		"F1 = 2*P*R / (P + R) = 2*0.667*1.000 / (0.667 + 1.000) = 0.800")
	p.keys("2")
	p.waitForText("2 context_entity_recall", "entity recall = |found| / |reference entities| = 3/3 = 1.000")
	p.keys("3")
	p.waitForText("3 noise_sensitivity", "unsupported: noise sensitivity needs an entailment judgement")
	if code := p.quit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
