package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// The demo conversations in the real binary with the offline judge: each
// conversation is one line, collapsed; → expands tax-zh to its turns in
// turn order, enter opens turn 2, whose page shows the turn before it; esc
// and ← fold it back.
func TestConversationRowsInTmux(t *testing.T) {
	db := filepath.Join(t.TempDir(), "conv.db")
	p := startTmux(t, 100, 30, "testdata/conversations.jsonl", "--offline", "--metrics", "faithfulness", "--db", db)
	s := p.waitForText("finished in", "7/7", "[+] tax-zh  4 turns", "[+] leave-en  3 turns")
	if !strings.Contains(s, "→/l expand") {
		t.Errorf("the footer does not offer expand:\n%s", s)
	}
	if strings.Contains(s, "我们公司下个月转为一般纳税人") {
		t.Errorf("a collapsed conversation shows its turns:\n%s", s)
	}

	p.keys("Right")
	s = p.waitForText("[-] tax-zh", "t4 转登记以后还能用简易计税吗？")
	order := []string{"t1 我们公司下个月转为一般纳税人。", "t2 那纳税人识别号会变吗？", "t3 发票抬头呢？", "t4 转登记以后还能用简易计税吗？", "[+] leave-en"}
	last := -1
	for _, w := range order {
		i := strings.Index(s, w)
		if i <= last {
			t.Fatalf("%q is not in turn order under tax-zh:\n%s", w, s)
		}
		last = i
	}

	p.keys("j", "j", "Enter")
	p.waitForText("Conversation tax-zh, turn 2", "1 user: 我们公司下个月转为一般纳税人。", "1 assistant: 转为一般纳税人后")

	p.keys("Escape")
	p.waitForText("[-] tax-zh", "t2 那纳税人识别号会变吗？")
	p.keys("Left")
	s = p.waitForText("[+] tax-zh", "[+] leave-en")
	if strings.Contains(s, "t2 那纳税人识别号会变吗？") {
		t.Errorf("← left the turns shown:\n%s", s)
	}
	if code := p.quit(); code != 0 {
		t.Errorf("exit %d", code)
	}
}
