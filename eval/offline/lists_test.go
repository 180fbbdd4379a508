package offline

import "testing"

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
