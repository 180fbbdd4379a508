package offline

import "testing"

// A Chinese statement that puts its answer in the question's frame
// writes bigrams across the seam (年王, 涛担 of 2023年王海涛担任) that no
// context need have; the answer's own bigrams still decide.
func TestAnswerInTheQuestionsFrame(t *testing.T) {
	q := "2024年新品发布会在哪举办？"
	ctx := []string{"苏州工业园区迎来新品发布会。"}
	approverQ := "谁负责审批差旅报销？"
	approver := []string{"差旅报销由财务部张晓梅审批。"}
	checkSupport(t, []supportCase{
		{"the seam's bigrams are not content", q, "2024年新品发布会在苏州举办。", ctx, 1, ""},
		{"another city in the same frame", q, "2024年新品发布会在无锡举办。", ctx, 0, ""},
		{"a name before the question's words", approverQ, "张晓梅负责审批差旅报销。", approver, 1, ""},
		{"another name before them", approverQ, "李建国负责审批差旅报销。", approver, 0, ""},
	})
}

func TestJunctions(t *testing.T) {
	tests := []struct {
		q, st string
		want  []string
		not   []string
	}{
		{"2023年谁担任财务总监", "2023年王海涛担任财务总监", []string{"h:年王", "h:涛担"}, []string{"h:王海", "h:海涛", "h:担任"}},
		// A one-character answer's bigram is the answer: kept.
		{"公司总部所在国是哪", "公司总部所在国是德国", nil, []string{"h:德国"}},
	}
	for _, tt := range tests {
		j := junctions(analyze(tt.st), analyze(tt.q))
		for _, f := range tt.want {
			if !j[f] {
				t.Errorf("junctions(%q, %q) lacks %s: %v", tt.st, tt.q, f, j)
			}
		}
		for _, f := range tt.not {
			if j[f] {
				t.Errorf("junctions(%q, %q) has %s", tt.st, tt.q, f)
			}
		}
	}
	if j := junctions(analyze("Ann Lee is the chair."), analyze("Who is the chair?")); j != nil {
		t.Errorf("junctions of English text = %v, want none", j)
	}
}
