package criteria

import (
	"strings"
	"testing"
)

func mustOne(t *testing.T, yaml string) *Criterion {
	t.Helper()
	set, err := Parse("c.yaml", []byte("criteria:\n  - name: c\n"+yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	return set.Criteria[0]
}

// matched lists the answer's text at each match, checking that the offsets
// point into the answer as given.
func matched(t *testing.T, answer string, ms []Match) string {
	t.Helper()
	var s []string
	for _, m := range ms {
		if answer[m.Start:m.End] != m.Text {
			t.Errorf("match %+v does not point at %q", m, m.Text)
		}
		s = append(s, m.Text)
	}
	return strings.Join(s, "|")
}

func TestExactChecks(t *testing.T) {
	for _, tc := range []struct {
		name, criterion, answer string
		contexts                []string
		score                   float64
		matches, reason         string
	}{
		// contains / not_contains: any by default, case and width folded.
		{"contains any", "    kind: contains\n    values: [差旅, 报销]\n", "出差住宿按标准报销", nil, 1, "报销", `found "报销"`},
		{"contains none", "    kind: contains\n    values: [差旅, 报销]\n", "请咨询HR", nil, 0, "", `no value found in the answer (looked for "差旅", "报销")`},
		{"contains all missing", "    kind: contains\n    values: [表单, 审批]\n    match: all\n", "填写表单即可", nil, 0, "表单", `missing "审批"`},
		{"contains all", "    kind: contains\n    values: [表单, 审批]\n    match: all\n", "填写表单后提交审批，审批通过", nil, 1, "表单|审批|审批", "found every value"},
		{"full-width value in answer", "    kind: not_contains\n    values: [咨询HR]\n", "请咨询ＨＲ部门", nil, 0, "咨询ＨＲ", `the answer has "咨询HR"`},
		{"case folded", "    kind: not_contains\n    values: [ask hr]\n", "Please Ask HR.", nil, 0, "Ask HR", `the answer has "ask hr"`},
		{"case sensitive", "    kind: not_contains\n    values: [ask hr]\n    case_sensitive: true\n", "Please Ask HR.", nil, 1, "", "none found"},
		{"not_contains all, one present", "    kind: not_contains\n    values: [HR, 人事]\n    match: all\n", "问HR", nil, 1, "HR", `not all found (missing "人事")`},
		{"not_contains all, both", "    kind: not_contains\n    values: [HR, 人事]\n    match: all\n", "问HR或人事", nil, 0, "HR|人事", `the answer has all of "HR", "人事"`},
		// regex with CJK classes; full-width digits read as digits.
		{"regex CJK class", "    kind: regex\n    pattern: \"制度编号|第[0-9一二三四五六七八九十百]+条\"\n", "依据第十二条，", nil, 1, "第十二条", "found"},
		{"regex full-width digits", "    kind: regex\n    pattern: \"第[0-9]+条\"\n", "依据第１２条，", nil, 1, "第１２条", "found"},
		{"regex missing", "    kind: regex\n    pattern: \"HR-[0-9]{3}\"\n", "见制度", nil, 0, "", "no pattern found"},
		{"regex folded case", "    kind: regex\n    pattern: \"policy [a-z]+-\\\\d+\"\n", "See POLICY HR-7.", nil, 1, "POLICY HR-7", "found"},
		{"not_regex", "    kind: not_regex\n    patterns: [\"\\\\d{3}-\\\\d{4}\"]\n", "call 555-1234", nil, 0, "555-1234", "the answer has"},
		{"regex empty match ignored", "    kind: regex\n    pattern: \"x*\"\n", "abc", nil, 0, "", "no pattern found"},
		// max_chars counts what a reader sees as a character.
		{"max ok", "    kind: max_chars\n    max: 5\n", "  你好，世界  ", nil, 1, "", "5 characters (at most 5)"},
		{"max over", "    kind: max_chars\n    max: 4\n", "你好，世界！", nil, 0, "界！", "6 characters, more than 4"},
		{"max graphemes", "    kind: max_chars\n    max: 2\n", "👍🏽e\u0301", nil, 1, "", "2 characters"},
		// json_valid
		{"json ok", "    kind: json_valid\n", " {\"a\": [1, \"二\"]}\n", nil, 1, "", "valid JSON"},
		{"json bad", "    kind: json_valid\n", "{\"a\": 1,}", nil, 0, "}", "not JSON at character 9"},
		{"json empty", "    kind: json_valid\n", "  ", nil, 0, "", "empty"},
		// lang: a Chinese character weighs as much as a Latin word.
		{"zh with English names", "    kind: lang\n    lang: zh-Hans\n", "请登录OA系统，在Workflow菜单提交Expense Report申请。", nil, 1, "", "Chinese (zh-Hans)"},
		{"zh-Hans given Traditional", "    kind: lang\n    lang: zh-Hans\n", "請聯繫人事部門辦理這個業務。", nil, 0, "請|聯|門|辦|這|個|業|務", "Traditional Chinese"},
		{"zh either script", "    kind: lang\n    lang: zh\n", "請聯繫人事部門辦理這個業務。", nil, 1, "", "Chinese (zh)"},
		{"zh-Hant given Simplified", "    kind: lang\n    lang: zh-Hant\n", "请联系人事部门。", nil, 0, "请|联|门", "Simplified Chinese"},
		{"en given zh", "    kind: lang\n    lang: en\n", "员工每年有5天年假。", nil, 0, "", "not English"},
		{"en", "    kind: lang\n    lang: en\n", "Employees get 5 days of leave (年假).", nil, 1, "", "English: 5 of 7"},
		{"zh given English", "    kind: lang\n    lang: zh\n", "Please contact the HR team 人事.", nil, 0, "", "not Chinese"},
		{"no words", "    kind: lang\n    lang: zh\n", "123 456", nil, 0, "", "no words"},
		// pii: a number the chunks hold is allowed, one they do not is not.
		{"phone in chunk", "    kind: pii\n", "请拨打 138-0013-8000 咨询", []string{"联系电话：13800138000"}, 1, "138-0013-8000", "each in a chunk"},
		{"phone not in chunk", "    kind: pii\n", "可打+86 139 1234 5678找张经理", []string{"联系电话：13800138000"}, 0, "+86 139 1234 5678", "not in any chunk: phone +86 139 1234 5678"},
		{"country code in chunk form", "    kind: pii\n", "电话+86 13800138000", []string{"电话 138 0013 8000"}, 1, "+86 13800138000", "each in a chunk"},
		{"landline", "    kind: pii\n", "总机010-62345678", nil, 0, "010-62345678", "phone 010-62345678"},
		{"id card valid", "    kind: pii\n", "身份证号11010519491231002X已登记", nil, 0, "11010519491231002X", "id_card"},
		{"id card bad checksum is no id", "    kind: pii\n", "单号110105194912310021", nil, 1, "", "no personal numbers"},
		{"bank card", "    kind: pii\n", "卡号 6222 0212 3456 7894", []string{"收款账户：6222021234567894"}, 1, "6222 0212 3456 7894", "each in a chunk"},
		{"bank card not luhn", "    kind: pii\n", "订单6222021234567890", nil, 1, "", "no personal numbers"},
		{"email case", "    kind: pii\n", "发邮件到 HR@Example.com", []string{"邮箱 hr@example.com"}, 1, "HR@Example.com", "each in a chunk"},
		{"email leaked", "    kind: pii\n", "发邮件到 zhang.san@corp.cn", []string{"邮箱 hr@corp.cn"}, 0, "zhang.san@corp.cn", "email zhang.san@corp.cn"},
		{"amount is no phone", "    kind: pii\n", "共计1380013800056元", nil, 1, "", "no personal numbers"},
		{"only emails", "    kind: pii\n    pii: [email]\n", "电话13912345678", nil, 1, "", "no personal numbers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustOne(t, tc.criterion)
			out := c.Check(tc.answer, tc.contexts)
			if out.Score != tc.score {
				t.Errorf("score %v, want %v (%s)", out.Score, tc.score, out.Reason)
			}
			if got := matched(t, tc.answer, out.Matches); got != tc.matches {
				t.Errorf("matches %q, want %q", got, tc.matches)
			}
			if !strings.Contains(out.Reason, tc.reason) {
				t.Errorf("reason %q, want it to contain %q", out.Reason, tc.reason)
			}
		})
	}
}

func TestPIIInContextFlag(t *testing.T) {
	c := mustOne(t, "    kind: pii\n")
	out := c.Check("电话13800138000或13912345678", []string{"13800138000"})
	if len(out.Matches) != 2 || !out.Matches[0].InContext || out.Matches[1].InContext || out.Score != 0 {
		t.Fatalf("%+v", out)
	}
}

func TestCheckPanicsOnJudgedKinds(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Check on a yes_no did not panic")
		}
	}()
	(&Criterion{Kind: YesNo}).Check("a", nil)
}

// A poor score's evidence is the noes, the level and the outcome.
func TestTraceEvidence(t *testing.T) {
	two := 2
	for _, c := range []struct {
		tr   *Trace
		want string
	}{
		{nil, ""},
		{&Trace{Draws: []Draw{{Verdict: 1, Reason: "fine"}, {Verdict: 0, Reason: "curt"}}}, "draw 2: no: curt"},
		{&Trace{Level: &two, Description: "partly"}, "level 2: partly"},
		{&Trace{Items: []ItemVerdict{{Item: "form named", Verdict: 0, Reason: "no form"}, {Item: "deadline", Verdict: 1}}}, "not met: form named: no form"},
		{&Trace{Reason: "no pattern found"}, "no pattern found"},
	} {
		if got := strings.Join(c.tr.Evidence(), "|"); got != c.want {
			t.Errorf("%+v: %q, want %q", c.tr, got, c.want)
		}
	}
}
