package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
)

// TestListItems: the items of a list are counted by its separators, a last
// part joined by 和 or "and" is two, and the list ends where its sentence
// or clause does (a line the statements' split made goes on with 以及).
func TestListItems(t *testing.T) {
	for _, tt := range []struct {
		list string
		want int
	}{
		{"安全帽、防护眼镜和劳保鞋。", 3},
		{"身份证原件和一张近期照片。", 2},
		{"轨距和水平、扣件紧固、辙叉磨耗，以及转辙机的表示。", 4},
		{"轨距和水平、扣件紧固、辙叉磨耗\n以及转辙机的表示。", 4},
		{"申请表、成绩单，缺一不可。", 2},
		{"核实身份前透露信息；辱骂、讽刺客户；擅自承诺退款。", 3},
		{"a signed form, a photo ID and a utility bill.", 3},
		{"a signed form, a photo ID, and a utility bill.", 3},
		{"a signed form, proof of cover (at least $10,000, or more), a reference\ntwo letters of support.", 4},
		{"a signed form. The office opens at 9, a photo ID.", 1},
	} {
		if got := listItems(tt.list); got != tt.want {
			t.Errorf("listItems(%q) = %d, want %d", tt.list, got, tt.want)
		}
	}
}

// TestCountOfItemsListed: a count the answer gives of the items it lists
// is its own arithmetic, so no context need state the number; a count its
// list does not make is still a number no context gives.
func TestCountOfItemsListed(t *testing.T) {
	zh := []string{"《实验室安全守则》第4条：进入洁净区必须穿戴以下用品：无尘帽、防护眼镜、无尘服、洁净鞋。"}
	en := []string{"Permit checklist. Applicants must bring a completed form, a photo ID and a utility bill dated within 90 days."}
	checkSupport(t, []supportCase{
		{"zh the count of its list", "进入洁净区要穿戴什么？一共几样？", "进入洁净区必须穿戴4样：无尘帽、防护眼镜、无尘服和洁净鞋。", zh, 1, ""},
		{"zh a count its list does not make", "进入洁净区要穿戴什么？一共几样？", "进入洁净区必须穿戴5样：无尘帽、防护眼镜、无尘服和洁净鞋。", zh, 0, "5样"},
		{"en the count of its list", "What must a permit applicant bring?", "Applicants must bring three things: a completed form, a photo ID and a utility bill dated within 90 days.", en, 1, "three things counts the items listed"},
		{"en a count its list does not make", "What must a permit applicant bring?", "Applicants must bring four things: a completed form, a photo ID and a utility bill dated within 90 days.", en, 0, "four things"},
	})
}

// TestListReadByItem: a statement that lists items after its colon is
// checked item by item against a list the context gives one item a
// sentence after its lead-in: every item found is support, an item the
// list and the other sentences lack is not, an item's number that differs
// is a conflict, and so is a count the list does not make (its items of
// some cases only aside). An item the list gives for some cases only is
// left to the sentences.
func TestListReadByItem(t *testing.T) {
	zh := []string{"第5.2条 随货文件：供应商每批交货须随附以下文件：1. 出厂检验报告；2. 材质证明书；3. 装箱清单；4. 批次追溯表。缺少任一文件的，买方有权拒收。"}
	zhLines := []string{"设备日常点检标准\n点检项目共四项：\n（1）润滑油位\n（2）皮带张紧度\n（3）紧固螺栓状态\n（4）安全防护罩。"}
	en := []string{"Site entry kit. Every visitor must wear: a hard hat; safety glasses; steel-toe boots; a hi-vis vest (yard visits only)."}
	enNumbers := []string{"Loan terms:\n- a 12-month repayment period\n- a 4% annual rate\n- a $500 arrangement fee"}
	checkSupport(t, []supportCase{
		{"zh inline numbered items", "每批交货要随附哪些文件？", "每批货要随附四份文件：出厂检验报告、材质证明书、装箱清单和批次追溯表。", zh, 1, "context lists after"},
		{"zh an item the list lacks", "每批交货要随附哪些文件？", "每批货要随附四份文件：出厂检验报告、材质证明书、装箱清单和原产地证书。", zh, 0, "原产地证书"},
		{"zh items a line each", "设备日常点检包括哪几项？", "日常点检共有四项：润滑油位、皮带张紧度、紧固螺栓状态和安全防护罩。", zhLines, 1, "context lists after"},
		{"zh a count the list does not make", "设备日常点检包括哪几项？", "日常点检共有三项：润滑油位、皮带张紧度和紧固螺栓状态。", zhLines, 0, "counts 3 where the context lists 4"},
		{"en items without their condition", "What must a visitor to the office wear?", "Three things: a hard hat, safety glasses and steel-toe boots.", en, 1, "context lists after"},
		{"en an item of some cases only", "What must a visitor to the office wear?", "Four things: a hard hat, safety glasses, steel-toe boots and a hi-vis vest.", en, 0, ""},
		{"en an item's number", "What are the loan terms?", "Three terms: a 12-month repayment period, a 5% annual rate and a $500 arrangement fee.", enNumbers, 0, "5%"},
	})
}

// TestListCheckLeavesTheSentencesAlone: checking a statement's list
// against the context's does not change the sentences the statements
// after it are tested on (the one after a list whose lead-in has text
// after its colon).
func TestListCheckLeavesTheSentencesAlone(t *testing.T) {
	s := &eval.Sample{
		Question: "What must a visitor bring to the depot?",
		Contexts: []string{"Depot visits. Every visitor must bring: (1) a photo ID; (2) a signed safety waiver; (3) a parking permit. A hard hat is required only on the loading dock."},
	}
	stmts := []string{"Three things: a photo ID, a signed safety waiver and a parking permit", "a hard hat on the loading dock."}
	vs, err := New().Verdicts(context.Background(), s, stmts)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Verdict != 1 {
			t.Errorf("%q: %+v, want supported", v.Statement, v)
		}
	}
	if !strings.Contains(vs[1].Reason, "loading dock") {
		t.Errorf("reason %q, want the hard hat's sentence", vs[1].Reason)
	}
}

// TestListInAWindowOfOneSentence: a list's lead-in tested alone (a
// restated answer's residual is tested against one sentence at a time)
// has no items to read, and the answer is judged, not a panic.
func TestListInAWindowOfOneSentence(t *testing.T) {
	s := &eval.Sample{
		Question: "What items must visitors bring?",
		Answer:   "Visitors must bring items numbering 4: laptop, charger, umbrella and snacks.",
		Contexts: []string{"Visitors must bring the following items:\n- passport\n- visa letter\n- return ticket"},
	}
	j := New()
	stmts, err := j.Statements(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	vs, err := j.Verdicts(context.Background(), s, stmts)
	if err != nil || len(vs) == 0 || vs[0].Verdict != 0 {
		t.Fatalf("Verdicts = %+v, %v; want the list unsupported", vs, err)
	}
}
