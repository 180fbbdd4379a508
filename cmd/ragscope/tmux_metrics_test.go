package main

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
