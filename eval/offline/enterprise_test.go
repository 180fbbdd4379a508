package offline

import (
	"context"
	"strings"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/offline/records"
	"github.com/ragscope/ragscope/eval/offline/words"
	"github.com/ragscope/ragscope/eval/report"
)

type enterpriseCase struct {
	name, question, answer string
	contexts               []string
	faithful               bool
	mustName               string // the reason of an unfaithful answer names it
}

// Enterprise-shaped fixtures of issue 26, one per mechanism, each with a
// faithful and an unfaithful answer. The texts are written for these tests.
func TestEnterpriseShapes(t *testing.T) {
	j := New()
	for _, c := range enterpriseCases() {
		t.Run(c.name, func(t *testing.T) {
			score, reasons, why := scoreWith(t, j, c.question, c.answer, c.contexts)
			t.Logf("F=%.2f %s", score, strings.Join(reasons, " | "))
			if c.faithful && score < 0.9 {
				t.Errorf("faithful answer scored %.2f: %s", score, strings.Join(reasons, " | "))
			}
			if !c.faithful {
				if score >= 0.5 {
					t.Errorf("unfaithful answer scored %.2f: %s", score, strings.Join(reasons, " | "))
				}
				if !strings.Contains(why, c.mustName) {
					t.Errorf("reasons do not name %q: %s", c.mustName, strings.Join(reasons, " | "))
				}
			}
		})
	}
}

// TestEnterpriseDiagnoses: the whole run of the default metrics over each
// fixture, with its pair's faithful answer as the reference, gives the
// diagnosis a person would: the retrieved chunk was the right one, so a
// faithful answer is ok and an unfaithful one is the generator's fault,
// never retrieval's.
func TestEnterpriseDiagnoses(t *testing.T) {
	cases := enterpriseCases()
	var samples []eval.Sample
	for i, c := range cases {
		ref := c.answer
		if !c.faithful {
			ref = cases[i-1].answer // the pairs come faithful first
		}
		samples = append(samples, eval.Sample{Index: i, ID: c.name, Question: c.question, Answer: c.answer, Contexts: c.contexts, Reference: ref})
	}
	r := &eval.Runner{Judge: New(), Config: eval.RunnerConfig{Metrics: eval.DefaultMetrics, Strictness: 3, Workers: 2}}
	for i, res := range r.Run(context.Background(), samples) {
		want := report.DiagGeneration
		if cases[i].faithful {
			want = report.DiagOK
		}
		if d := report.Diagnose(res); d != want {
			t.Errorf("%s: diagnosed %s, want %s (scores %v, status %v)", cases[i].name, d, want, scores(res), res.Status)
		}
	}
}

func scores(r *eval.Result) map[eval.Metric]float64 {
	out := map[eval.Metric]float64{}
	for m, v := range r.Scores {
		if v != nil {
			out[m] = *v
		}
	}
	return out
}

func enterpriseCases() []enterpriseCase {
	mealTable := "各级员工出差每日餐补标准如下。\n\n| 岗位级别 | 广州/杭州/成都 | 其他地区 |\n|---|---|---|\n| 总监 | 150元/天 | 120元/天 |\n| 专员 | 100元/天 | 80元/天 |"
	enTable := "Daily hotel allowance by grade:\n\n| Grade | London/Paris | Other cities |\n|---|---|---|\n| Director | 240 EUR | 180 EUR |\n| Associate | 160 EUR | 120 EUR |"
	invoice := "收款单位: 上海远帆科技有限公司\n纳税人识别号: 91310115MA1K4XYZ2Q\n开户行及账号: 中国银行上海浦东分行 4567889900\n发票类型: 增值税专用发票"
	fund := "住房公积金缴存比例: 12%\n补充公积金缴存比例: 5%\n缴存基数上限: 36549元"
	enRecord := "Vendor: Northwind Supplies Ltd\nPayment terms: Net 45\nBank: First Harbour Bank, Leeds branch\nContact: accounts@northwind.example"
	licence := "Licence: PlanDesk (25 seats)\nTerm start: 2024-04-01\nTerm end: 2025-03-31\nAuto-renew: Yes (12 months)"
	enDates := "Purchase order: PO-7730\nOrder date: 2025-03-14\nDelivery date: 2025-04-02\nTotal: 8,950 USD"
	zhDates := "合同编号：HT-2025-118\n签订日期：2025年1月8日\n生效日期：2025年2月1日"
	asset := "Asset tag: NB-2207\nModel: Latitude 7440\nAssigned to: Grace Okafor (Legal)\nPrevious holder: Sam Whitfield (Marketing)\nStatus: In use"
	zhAsset := "资产编号：PC-3391\n使用人：周敏（人事部）\n原使用人：韩磊（市场部）\n状态：在用"
	notice := "The notice period is 30 days for staff and 60 days for managers."
	zhNotice := "普通员工离职需提前30天通知，经理需提前60天通知。"
	return []enterpriseCase{
		{"shares en faithful", "What is the notice period for managers?", "Managers have a 60-day notice period.", []string{notice}, true, ""},
		{"shares en unfaithful", "What is the notice period for managers?", "Managers have a 30-day notice period.", []string{notice}, false, "60 days for managers"},
		{"shares zh faithful", "经理离职要提前多久通知？", "经理需要提前60天通知。", []string{zhNotice}, true, ""},
		{"shares zh unfaithful", "经理离职要提前多久通知？", "经理需要提前30天通知。", []string{zhNotice}, false, "经理需提前60天通知"},
		{"record en neighbour faithful", "Who has laptop NB-2207 now?", "NB-2207, a Latitude 7440, is assigned to Grace Okafor in Legal.", []string{asset}, true, ""},
		{"record en neighbour unfaithful", "Who has laptop NB-2207 now?", "NB-2207, a Latitude 7440, is assigned to Sam Whitfield in Marketing.", []string{asset}, false, `field "Previous holder"`},
		{"record zh neighbour faithful", "PC-3391现在谁在用？", "PC-3391的使用人是周敏（人事部）。", []string{zhAsset}, true, ""},
		{"record zh neighbour unfaithful", "PC-3391现在谁在用？", "PC-3391的使用人是韩磊（市场部）。", []string{zhAsset}, false, "使用人"},
		{"numerals en compound faithful", "How quickly must a lost badge be reported?", "A lost badge must be reported to Security within twenty-four hours.", []string{"Lost or stolen badges must be reported to Security within 24 hours."}, true, ""},
		{"numerals en compound unfaithful", "How quickly must a lost badge be reported?", "A lost badge must be reported to Security within forty-eight hours.", []string{"Lost or stolen badges must be reported to Security within 24 hours."}, false, "48"},
		{"record en written date faithful", "When does the PlanDesk term end?", "The term ends on 31 March 2025 and then auto-renews for 12 months.", []string{licence}, true, ""},
		{"record en written date unfaithful", "When does the PlanDesk term end?", "The term ends on 31 March 2024.", []string{licence}, false, "Term end"},
		{"record en date faithful", "When is the order delivered?", "The order is delivered on 2025-04-02.", []string{enDates}, true, ""},
		{"record en date unfaithful", "When is the order delivered?", "The order is delivered on 2025-03-14.", []string{enDates}, false, "Delivery date"},
		{"record zh date faithful", "合同什么时候生效？", "合同于2025-02-01生效。", []string{zhDates}, true, ""},
		{"record zh date unfaithful", "合同什么时候生效？", "合同于2025-01-08生效。", []string{zhDates}, false, "生效日期"},
		{"table zh faithful", "总监去杭州出差餐补多少？", "总监在杭州出差时，每日餐补为150元。", []string{mealTable}, true, ""},
		{"table zh unfaithful", "专员去杭州出差餐补多少？", "专员在杭州出差时，每日餐补为150元。", []string{mealTable}, false, "100元"},
		{"table en faithful", "What is the hotel allowance for a director in Paris?", "A director travelling to Paris gets a hotel allowance of 240 EUR a day.", []string{enTable}, true, ""},
		{"table en unfaithful", "What is the hotel allowance for an associate in Paris?", "An associate travelling to Paris gets a hotel allowance of 240 EUR a day.", []string{enTable}, false, "160 EUR"},
		{"record zh faithful", "开户行是哪家？", "开户行是中国银行上海浦东分行。", []string{invoice}, true, ""},
		{"record zh unfaithful", "开户行是哪家？", "开户行是建设银行上海浦东分行。", []string{invoice}, false, "开户行及账号"},
		{"record zh number faithful", "补充公积金缴存比例是多少？", "补充公积金的缴存比例为5%。", []string{fund}, true, ""},
		{"record zh number unfaithful", "补充公积金缴存比例是多少？", "补充公积金的缴存比例为12%。", []string{fund}, false, "补充公积金缴存比例"},
		{"record en faithful", "Which bank does Northwind use?", "Northwind's bank is First Harbour Bank, Leeds branch.", []string{enRecord}, true, ""},
		{"record en unfaithful", "Which bank does Northwind use?", "Northwind's bank is Second Harbour Bank, York branch.", []string{enRecord}, false, "Bank"},
		{"chunks zh faithful", "婚假一共几天？", "婚假3天，加上晚婚奖励假7天，共计10天。", []string{"员工依法享受婚假3天。", "符合晚婚条件的员工另享晚婚奖励假7天。"}, true, ""},
		{"chunks zh unfaithful", "婚假一共几天？", "婚假3天，加上晚婚奖励假7天，共计12天。", []string{"员工依法享受婚假3天。", "符合晚婚条件的员工另享晚婚奖励假7天。"}, false, "12天"},
		{"chunks en faithful", "How much leave does a new hire get?", "A new hire gets 15 days of annual leave and 5 days of sick leave, 20 days in total.", []string{"A new hire gets 15 days of annual leave.", "Every employee also gets 5 days of sick leave."}, true, ""},
		{"chunks en unfaithful", "How much leave does a new hire get?", "A new hire gets 15 days of annual leave and 5 days of sick leave, 25 days in total.", []string{"A new hire gets 15 days of annual leave.", "Every employee also gets 5 days of sick leave."}, false, "25 days"},
		{"numerals zh faithful", "离职要提前多久通知？", "离职需要提前两周书面通知公司。", []string{"员工离职需提前14天书面通知公司。"}, true, ""},
		{"numerals zh unfaithful", "离职要提前多久通知？", "离职需要提前三周书面通知公司。", []string{"员工离职需提前14天书面通知公司。"}, false, "21"},
		{"numerals zh mixed faithful", "试用期最长多久？", "试用期最长三十天，工资不低于转正工资的百分之八十。", []string{"试用期最长30天，试用期工资不低于转正工资的80%。"}, true, ""},
		{"numerals zh mixed unfaithful", "试用期最长多久？", "试用期最长六十天，工资不低于转正工资的百分之六十。", []string{"试用期最长30天，试用期工资不低于转正工资的80%。"}, false, "60"},
		{"numerals en faithful", "How long is a standard workday?", "A standard workday is eight hours, with a bonus of 1.5万 yuan at year end.", []string{"The standard workday is 8 hours. A year-end bonus of 15000 RMB is paid."}, true, ""},
		{"numerals en unfaithful", "How long is a standard workday?", "A standard workday is ten hours.", []string{"The standard workday is 8 hours. A year-end bonus of 15000 RMB is paid."}, false, "ten hours"},
		{"units zh faithful", "设备保修多久？", "设备整机保修两年。", []string{"设备（型号 XR-2G）整机保修期为24个月，自验收之日起计算。"}, true, "2年 is 24个月"},
		{"units zh unfaithful", "设备保修多久？", "设备整机保修三年。", []string{"设备（型号 XR-2G）整机保修期为24个月，自验收之日起计算。"}, false, "3年"},
		{"units en faithful", "How long does the repair warranty last?", "The repair warranty lasts three weeks.", []string{"Repairs are guaranteed for 21 days from collection."}, true, "3 weeks is 21 days"},
		{"units en unfaithful", "How long does the repair warranty last?", "The repair warranty lasts three months.", []string{"Repairs are guaranteed for 21 days from collection."}, false, ""},
		{"units zh length faithful", "园区的环路全长多少公里？", "园区环路全长9公里。", []string{"园区占地12平方公里，环路全长9公里。"}, true, ""},
		{"units zh area is no length", "园区的环路全长多少公里？", "园区环路全长12公里。", []string{"园区占地12平方公里，环路全长9公里。"}, false, "12公里"},
		{"units en length faithful", "How long is the campus ring road?", "The campus ring road is 9 km long.", []string{"The campus covers 12 square kilometres; its ring road is 9 km long."}, true, ""},
		{"units en area is no length", "How long is the campus ring road?", "The campus ring road is 12 km long.", []string{"The campus covers 12 square kilometres; its ring road is 9 km long."}, false, "12 km"},
		{"frame zh faithful", "报销要多久内提交？", "据公司制度规定，综上所述，员工报销应在费用发生后30天内提交。", []string{"员工报销应在费用发生后30天内提交。"}, true, ""},
		{"frame zh unfaithful", "报销需要谁审批？", "据公司制度规定，综上所述，报销需要财务总监和首席执行官共同审批。", []string{"员工报销应在费用发生后30天内提交，由直属经理审批。"}, false, "总监"},
		{"frame en faithful", "Who approves travel?", "According to the company policy, in summary, travel expenses must be approved by the line manager before booking.", []string{"Travel expenses must be approved by the line manager before booking."}, true, ""},
		{"frame en unfaithful", "Who approves travel?", "According to the company policy, in summary, travel expenses must be approved by the finance director after the trip.", []string{"Travel expenses must be approved by the line manager before booking."}, false, "director"},
		{"compare zh faithful", "上海和武汉，哪个城市的交通补贴更高？", "上海的交通补贴更高。", []string{"上海员工每月交通补贴500元。", "武汉员工每月交通补贴300元。"}, true, ""},
		{"compare zh unfaithful", "上海和武汉，哪个城市的交通补贴更高？", "武汉的交通补贴更高。", []string{"上海员工每月交通补贴500元。", "武汉员工每月交通补贴300元。"}, false, "500元"},
		{"compare en answer faithful", "Which building opened earlier, the north campus or the south campus?", "The south campus", []string{"The north campus opened in 2015.", "The south campus opened in 2009 and was renovated in 2019."}, true, ""},
		{"compare en answer unfaithful", "Which building opened earlier, the north campus or the south campus?", "The north campus", []string{"The north campus opened in 2015.", "The south campus opened in 2009 and was renovated in 2019."}, false, "2009"},
		{"compare table faithful", "Which tier has the highest storage quota?", "The Team tier has the highest storage quota, 2000 GB.", []string{"| Tier | Storage quota |\n|---|---|\n| Starter | 100 GB |\n| Team | 2000 GB |\n| Pro | 1000 GB |"}, true, ""},
		{"compare table unfaithful", "Which tier has the highest storage quota?", "The Pro tier has the highest storage quota.", []string{"| Tier | Storage quota |\n|---|---|\n| Starter | 100 GB |\n| Team | 2000 GB |\n| Pro | 1000 GB |"}, false, "Team"},
		{"roles en faithful", "Who approves a purchase order?", "Finance approves purchase orders.", []string{"Purchase orders are raised by the requester, checked by Procurement and approved by Finance."}, true, ""},
		{"roles en unfaithful", "Who approves a purchase order?", "Procurement approves purchase orders.", []string{"Purchase orders are raised by the requester, checked by Procurement and approved by Finance."}, false, "approved by Finance"},
		{"roles zh faithful", "采购订单由谁批准？", "采购订单由财务部批准。", []string{"采购订单由申请人提交，采购部核对，财务部批准。"}, true, ""},
		{"roles zh unfaithful", "采购订单由谁批准？", "采购订单由采购部批准。", []string{"采购订单由申请人提交，采购部核对，财务部批准。"}, false, "财务部批准"},
		{"list count zh faithful", "进入洁净区要穿戴什么？一共几样？", "进入洁净区必须穿戴4样：无尘帽、防护眼镜、无尘服和洁净鞋。", []string{"《实验室安全守则》第4条：进入洁净区必须穿戴以下用品：无尘帽、防护眼镜、无尘服、洁净鞋。"}, true, ""},
		{"list count zh unfaithful", "进入洁净区要穿戴什么？一共几样？", "进入洁净区必须穿戴5样：无尘帽、防护眼镜、无尘服、洁净鞋和防毒面具。", []string{"《实验室安全守则》第4条：进入洁净区必须穿戴以下用品：无尘帽、防护眼镜、无尘服、洁净鞋。"}, false, "lists 4"},
	}
}

// scoreWith is the faithfulness of the answer, its statements with their
// reasons, and the reasons of the unsupported statements alone.
func scoreWith(t *testing.T, j *Judge, question, answer string, contexts []string) (float64, []string, string) {
	t.Helper()
	s := &eval.Sample{ID: "x", Question: question, Answer: answer, Contexts: contexts}
	score, vs := faithfulness(t, j, s)
	var reasons, why []string
	for _, v := range vs {
		reasons = append(reasons, v.Statement+" => "+v.Reason)
		if v.Verdict == 0 {
			why = append(why, v.Reason)
		}
	}
	return score, reasons, strings.Join(why, " ")
}

// A team's lexicon: its synonyms read before analysis, its evasions added.
func TestTeamLexicon(t *testing.T) {
	lx, err := words.ParseLexicon(strings.NewReader("# team words\nnoncommittal: 建议您咨询HR\nsame: 一个账期 = 30天\n"), "team.txt")
	if err != nil {
		t.Fatal(err)
	}
	ctx := []string{"供应商发票须在收到后30天内付款。"}
	q := "供应商发票多久内要付款？"
	a := "供应商发票须在收到后一个账期内付款。"
	if f, _, _ := scoreWith(t, New(), q, a, ctx); f != 0 {
		t.Errorf("without the lexicon 一个账期 is not 30天, got %.2f", f)
	}
	if f, r, _ := scoreWith(t, New(WithLexicon(lx)), q, a, ctx); f < 0.9 {
		t.Errorf("with the lexicon: %.2f %v", f, r)
	}
	s := &eval.Sample{Answer: "这个问题建议您咨询HR。"}
	if ok, _ := New().Noncommittal(s); ok {
		t.Error("an embedded list has the team's phrase")
	}
	if ok, p := New(WithLexicon(lx)).Noncommittal(s); !ok || p != "建议您咨询hr" {
		t.Errorf("Noncommittal = %v %q", ok, p)
	}
	for _, bad := range []string{"same: 两周", "synonym: a = b", "noncommittal:"} {
		if _, err := words.ParseLexicon(strings.NewReader(bad), "bad.txt"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// The cases of issue 26 as it states them.
func TestIssue26Cases(t *testing.T) {
	hotel := "差旅住宿标准\n| 职级 | 北京/上海/深圳 | 其他城市 |\n|---|---|---|\n| 经理 | 800元/晚 | 550元/晚 |\n| 普通员工 | 600元/晚 | 400元/晚 |"
	fund := "住房公积金缴存比例: 7%\n补充公积金缴存比例: 5%\n缴存基数: 上年度月平均工资"
	invoice := "名称: 上海某某有限公司\n开户行及账号: 招商银行上海张江支行 1219 0000\n地址: 上海市浦东新区"
	checkSupport(t, []supportCase{
		{"", "", "经理去上海出差，住宿标准为每晚800元", []string{hotel}, 1, "cell (经理, 上海) gives 800元/晚"},
		{"", "", "经理去上海出差，餐费补贴为每晚800元", []string{hotel}, 0, "餐费补贴"},
		{"", "", "98天产假，加上生育假60天，合计158天", []string{"女职工生育享受98天产假。", "按本市规定，另享受生育假60天。"}, 1, "98天 + 60天 = 158天"},
		{"", "", "补充公积金单位和个人各缴存7%", []string{fund}, 0, `field "补充公积金缴存比例" gives 5%`},
		{"", "", "补充公积金单位和个人各缴存5%", []string{fund}, 1, `field "补充公积金缴存比例" gives 5%`},
		{"", "", "开户行是工商银行张江支行", []string{invoice}, 0, `field "开户行及账号" gives 招商银行上海张江支行`},
		{"", "", "三十天内提交", []string{"须在30天内提交。"}, 1, ""},
	})
}

// A transliterated name's given name is optional: the context names the
// person by the family name; another family name is not supported.
func TestGivenNameOptional(t *testing.T) {
	ctx := []string{"佩洛西自2019年1月起担任众议院议长。"}
	for stmt, want := range map[string]int{"南希·佩洛西": 1, "答案是南希·佩洛西。": 1, "希拉里·克林顿": 0, "佩洛西": 1} {
		if ev := Support(stmt, "2021年众议院议长是谁", ctx); ev.Verdict != want {
			t.Errorf("%q: verdict %d, want %d: %s", stmt, ev.Verdict, want, ev.Reason)
		}
	}
	// Written in the context, the given name counts as any word.
	full := []string{"盖尔·加朵主演了这部电影。"}
	if ev := Support("盖尔·加朵主演了这部电影", "", full); ev.Coverage < 0.99 {
		t.Errorf("coverage %.2f of a name the context writes whole", ev.Coverage)
	}
}

// A cell's value written whole is its value, whatever verb stands beside
// it; another field's value written where this one belongs replaces it. A
// header may give its column's unit in brackets: the slash in it lists no
// keys, and the column's bare numbers are read in that unit; a bare number
// is checked against the number the statement writes with a word of its
// own after it, unless another cell of the row gives that number.
func TestFieldValues(t *testing.T) {
	seats := "| 职级 | 飞机 | 高铁 |\n|---|---|---|\n| 主管 | 经济舱 | 一等座 |\n| 专员 | 经济舱 | 二等座 |"
	order := "订单号: PO-7781\n供应商名称: 宁波海川包装有限公司\n收货单位名称: 无锡蓝桥电子有限公司\n金额: 8,400元"
	hotel := "住宿费标准\n| 城市类别 | 普通员工（元/晚） | 经理级（元/晚） |\n|---|---|---|\n| 一线城市 | 500 | 700 |\n| 二线城市 | 400 | 550 |"
	contract := "Term: 12 months, auto-renewing for successive 12-month terms\nCurrent term ends: 30 June 2025\nNon-renewal: written notice at least 90 days before the end of the current term"
	plans := "| Plan | API requests / minute | Monthly API calls |\n|---|---|---|\n| Starter | 60 | 50,000 |\n| Growth | 300 | 500,000 |"
	checkSupport(t, []supportCase{
		{"", "", "主管坐高铁可以选一等座", []string{seats}, 1, "cell (主管, 高铁) gives 一等座"},
		{"", "", "专员坐高铁可以选一等座", []string{seats}, 0, "cell (专员, 高铁) gives 二等座"},
		{"", "", "供应商名称是宁波海川包装有限公司", []string{order}, 1, `field "供应商名称"`},
		{"", "", "供应商名称是无锡蓝桥电子有限公司", []string{order}, 0, `field "供应商名称" gives 宁波海川包装有限公司`},
		{"", "", "经理级员工在二线城市出差，每晚最多可报销550元", []string{hotel}, 1, "cell (二线城市, 经理级（元/晚）) gives 550 元/晚"},
		{"", "", "经理级员工在二线城市出差，每晚最多可报销700元", []string{hotel}, 0, "statement says 700元 where cell (二线城市, 经理级（元/晚）) gives 550 元/晚"},
		{"", "", "The Growth plan comes with 500,000 API calls a month, at up to 300 requests per minute", []string{plans}, 1, "cell (Growth, Monthly API calls) gives 500,000"},
		{"", "", "The Growth plan comes with 50,000 API calls a month, at up to 300 requests per minute", []string{plans}, 0, "statement says 50,000 api where cell (Growth, Monthly API calls) gives 500,000"},
		// The key's own word in the value ("terms" under "Term") is no
		// value said: the other fields decide.
		{"", "", "Notice must be given at least 60 days before the term ends", []string{contract}, 0, "statement says 60 days"},
		{"", "", "Notice must be given at least 90 days before the term ends", []string{contract}, 1, "coverage 1.00"},
	})
}

// A capital letter that names a row ("A 套餐", "智能门锁 S 系列") is a word
// of it, though "a" and "s" are stop words: without it the A row was named
// by every statement about the B row, and the first row won.
func TestCodeLetterNamesARow(t *testing.T) {
	plans := "| 套餐 | 北京 | 上海 |\n|---|---|---|\n| A 套餐 | 300元 | 320元 |\n| B 套餐 | 450元 | 480元 |"
	locks := "| 产品线 | 中国大陆 | 港澳台 |\n|---|---|---|\n| 智能门锁 S 系列 | 3年 | 2年 |\n| 智能门锁 P 系列 | 5年 | 3年 |"
	checkSupport(t, []supportCase{
		{"", "", "B套餐在上海的价格是480元", []string{plans}, 1, "cell (B 套餐, 上海) gives 480元"},
		{"", "", "B套餐在上海的价格是320元", []string{plans}, 0, "statement says 320元 where cell (B 套餐, 上海) gives 480元"},
		{"", "", "A套餐在上海的价格是320元", []string{plans}, 1, "cell (A 套餐, 上海) gives 320元"},
		{"", "", "智能门锁P系列在港澳台的质保期是三年", []string{locks}, 1, "cell (智能门锁 P 系列, 港澳台) gives 3年"},
		{"", "", "智能门锁P系列在港澳台的质保期是两年", []string{locks}, 0, "cell (智能门锁 P 系列, 港澳台) gives 3年"},
	})
}

// A Chinese bigram between two words the sentence has (付值 of 支付值班费,
// where the sentence has 支付 and 值班) is found: the answer joined them.
func TestSeamBetweenWords(t *testing.T) {
	duty := []string{"夜班人员按月薪的10%领取夜班津贴。", "节假日值班按300%支付。"}
	checkSupport(t, []supportCase{
		{"", "", "节假日值班按日工资的300%支付值班费", duty, 1, "coverage 0.75"},
		{"", "", "节假日值班按日工资的200%支付值班费", duty, 0, "statement says 200% where the context gives 300%"},
	})
}

// 三十千克 is 30 kg (not 1030克), 公斤 and 千克 one unit; 30磅 is not 30公斤,
// nor 15 hours 15 minutes.
func TestTwoCharacterUnits(t *testing.T) {
	parcel := []string{"单件包裹实际重量不得超过30公斤，超重包裹需拆分寄送。"}
	for stmt, want := range map[string]int{"单件包裹实际重量不得超过三十千克": 1, "单件包裹实际重量不得超过30千克": 1, "单件包裹实际重量不得超过40公斤": 0,
		// The same number in another unit of the same kind is another quantity.
		"单件包裹实际重量不得超过30磅": 0} {
		if ev := Support(stmt, "", parcel); ev.Verdict != want {
			t.Errorf("%q: verdict %d, want %d: %s", stmt, ev.Verdict, want, ev.Reason)
		}
	}
	lockout := []string{"After 5 consecutive failed attempts, the account is locked for 15 minutes."}
	for stmt, want := range map[string]int{"After 5 consecutive failed attempts the account is locked for 15 minutes": 1, "After 5 consecutive failed attempts the account is locked for 15 hours": 0} {
		if ev := Support(stmt, "", lockout); ev.Verdict != want {
			t.Errorf("%q: verdict %d, want %d: %s", stmt, ev.Verdict, want, ev.Reason)
		}
	}
}

// "one hour" is the quantity 1 hour: another value of the field's unit is
// a conflict.
func TestOneIsACount(t *testing.T) {
	ticket := "Ticket: INC-4410\nPriority: P3\nResponse SLA: 6 hours\nResolution SLA: 3 business days"
	if ev := Support("The response SLA is one hour.", "", []string{ticket}); ev.Verdict != 0 || !strings.Contains(ev.Reason, "6 hours") {
		t.Errorf("one hour against 6 hours: %d %s", ev.Verdict, ev.Reason)
	}
	if ev := Support("The response SLA is six hours.", "", []string{ticket}); ev.Verdict != 1 {
		t.Errorf("six hours: %d %s", ev.Verdict, ev.Reason)
	}
}

// A pronoun after a semicolon stands for what the piece before it is
// about; a framed restatement of the question with its negation is
// supported, the same without it is not.
func TestPronounAfterSemicolon(t *testing.T) {
	ctx := []string{"The parking garage is reserved for visitors only; employees may not park in it."}
	q := "Can employees park in the parking garage?"
	if ev := Support("As stated in the handbook, employees may not park in the parking garage.", q, ctx); ev.Verdict != 1 {
		t.Errorf("negated: %s", ev.Reason)
	}
	if ev := Support("As stated in the handbook, employees may park in the parking garage.", q, ctx); ev.Verdict != 0 || ev.Detector != DetectorNegation {
		t.Errorf("affirmed: %d %s", ev.Verdict, ev.Reason)
	}
}

// A line that ends in a colon captions the table below it; a clause that
// opens on 在 sets the scene of the next; a cell's quantity is compared as
// one, its unit written apart ("每月...300元" for 300元/月).
func TestCaptionAndScene(t *testing.T) {
	table := "交通补贴按城市发放：\n\n| 岗位 | 一线城市 | 二线城市 |\n|---|---|---|\n| 客服 | 260元/月 | 180元/月 |\n| 财务 | 120元/月 | 90元/月 |"
	for a, want := range map[string]float64{
		"在一线城市工作的客服，每月交通补贴为260元。": 1,
		"在一线城市工作的财务，每月交通补贴为260元。": 0,
	} {
		if f, r, _ := scoreWith(t, New(), "各城市的交通补贴是多少？", a, []string{table}); f != want {
			t.Errorf("%s: %.2f, want %.0f: %v", a, f, want, r)
		}
	}
	if records.IsField("交通补贴按城市发放：") {
		t.Error("a caption read as a field")
	}
}

// A year and a clock time glued by a period are two numbers.
func TestYearGluedToATime(t *testing.T) {
	ctx := []string{"The update was released on March 3, 2021.09:30 AM UTC."}
	if ev := Support("March 3 2021", "When was the update released?", ctx); ev.Verdict != 1 {
		t.Errorf("glued year: %s", ev.Reason)
	}
	if ev := Support("March 3 2012", "When was the update released?", ctx); ev.Verdict != 0 {
		t.Errorf("another year: %s", ev.Reason)
	}
}

// "3 additional days" is 3 days: a total of days counts it.
func TestUnitAfterAModifier(t *testing.T) {
	ctx := []string{"Interns receive 10 days of paid leave.", "Interns staying over six months receive 2 extra days."}
	q := "How much leave does an intern get?"
	if f, r, _ := scoreWith(t, New(), q, "An intern staying over six months gets 10 days of paid leave and 2 extra days, 12 days in total.", ctx); f != 1 {
		t.Errorf("total: %.2f %v", f, r)
	}
	if f, r, _ := scoreWith(t, New(), q, "An intern staying over six months gets 10 days of paid leave and 2 extra days, 14 days in total.", ctx); f != 0 {
		t.Errorf("wrong total: %.2f %v", f, r)
	}
}

// A character the context inserts into the statement's words (需, 再)
// costs no coverage; a function word the statement writes (需要 for 应,
// 自己, 这类, 才能) is no word the context lacks.
func TestInsertedAndReplacedChinese(t *testing.T) {
	ctx := []string{"员工需通过系统再提交申请。"}
	if ev := Support("员工通过系统提交申请。", "怎么申请？", ctx); ev.Verdict != 1 || ev.Coverage != 1 {
		t.Errorf("inserted characters: %.2f %s", ev.Coverage, ev.Reason)
	}
	ctx = []string{"年假申请须经部门主管批准后再报人事部备案。"}
	if ev := Support("年假申请需要经部门主管批准。", "年假怎么申请？", ctx); ev.Verdict != 1 {
		t.Errorf("a function word: %s", ev.Reason)
	}
	// 自己, 这类, 才能 are function words too.
	ctx = []string{"门禁卡丢失的，由持卡人第一时间向行政部报告。只有转正员工可申请远程办公。"}
	for _, st := range []string{"门禁卡丢失应由持卡人自己第一时间向行政部报告。", "只有转正员工才能申请远程办公。"} {
		if ev := Support(st, "门禁卡丢失怎么办？", ctx); ev.Verdict != 1 {
			t.Errorf("a function word: %s", ev.Reason)
		}
	}
}

// Two chunks together support a total even when one of them alone covers
// the statement's words, and another total is a number conflict.
func TestTotalAcrossChunksWhenOneCovers(t *testing.T) {
	ctx := []string{"员工结婚可请婚假3天。", "需要在外地举行婚礼的，另给路程假2天。"}
	q := "婚假有几天？"
	if ev := Support("婚假3天，需要在外地举行婚礼的另给路程假2天，合计5天。", q, ctx); ev.Verdict != 1 || !strings.Contains(ev.Reason, "3天 + 2天 = 5天") {
		t.Errorf("total: %s", ev.Reason)
	}
	if ev := Support("婚假3天，需要在外地举行婚礼的另给路程假2天，合计6天。", q, ctx); ev.Verdict != 0 || ev.Detector != DetectorNumber {
		t.Errorf("wrong total: %s", ev.Reason)
	}
}

// TestAnswerArithmetic: a total or a difference whose terms the answer
// writes in another statement, each given by the contexts, is no number
// conflict, and a total so found is supported with its arithmetic; a
// figure that is neither is a number conflict, marked so in the trace.
func TestAnswerArithmetic(t *testing.T) {
	plans := []string{"| 版本 | 月费 | 存储 |\n|---|---|---|\n| 基础版 | 45元 | 100GB |\n| 高级版 | 99元 | 1TB |"}
	lease := []string{"Monthly rent for flat 2C: $1,400. Monthly rent for flat 3A: $1,650.",
		"The deposit equals one month's rent. The first month's rent and the deposit are due at signing, with a one-off $100 admin fee."}
	fees := []string{"平台对服饰类目商品收取成交金额5%的技术服务费，家电类目收取2%。", "所有类目另收成交金额0.6%的支付通道费，结算时代扣。"}
	j := New()
	for _, c := range []struct {
		name, question, answer string
		contexts               []string
		want                   string // in a supported statement's reason; "" for none
		wrong                  string // the figure a number conflict names; "" for none
	}{
		{"difference", "高级版比基础版每月贵多少？", "高级版每月99元，基础版45元，高级版贵54元。", plans, "", ""},
		{"wrong difference", "高级版比基础版每月贵多少？", "高级版每月99元，基础版45元，高级版贵64元。", plans, "", "64元"},
		{"total, a term twice", "What do I pay when I sign the lease for flat 2C?", "$2,900 in all: the first month's $1,400, a $1,400 deposit and the $100 admin fee.", lease, "$1,400 + $1,400 + $100 = $2,900", ""},
		{"wrong total", "What do I pay when I sign the lease for flat 2C?", "$3,000 in all: the first month's $1,400, a $1,400 deposit and the $100 admin fee.", lease, "", "$3,000"},
		{"terms in the next statement", "服饰类目每笔成交一共扣多少比例？", "合计5.6%。即5%的技术服务费，加上0.6%的支付通道费。", fees, "", ""},
		{"terms not the answer's", "服饰类目每笔成交一共扣多少比例？", "合计5.6%。", fees, "", "5.6%"},
	} {
		s := &eval.Sample{Question: c.question, Answer: c.answer, Contexts: c.contexts}
		st, _ := j.Statements(context.Background(), s)
		vs, _ := j.Verdicts(context.Background(), s, st)
		found, wrong := c.want == "", ""
		for _, v := range vs {
			found = found || v.Verdict == 1 && strings.Contains(v.Reason, c.want)
			if v.Conflict == eval.ConflictNumber && wrong == "" {
				wrong = v.Reason
			}
		}
		if !found || (c.wrong == "") != (wrong == "") || c.wrong != "" && !strings.Contains(wrong, c.wrong) {
			t.Errorf("%s: want %q supported and a number conflict on %q, got %+v", c.name, c.want, c.wrong, vs)
		}
	}
}

// A date the answer computes from a date and a span the contexts give is
// supported, with the arithmetic in the reason; one computed wrong is a
// number conflict, and its month no name.
func TestComputedDate(t *testing.T) {
	contract := []string{"Contract summary\nTerm: 12 months, auto-renewing\nCurrent term ends: 30 June 2025\nNon-renewal: written notice at least 90 days before the end of the current term"}
	q := "By when must we give notice of non-renewal?"
	if ev := Support("Notice is due at least 90 days before the term ends on 30 June 2025, so by 1 April 2025.", q, contract); ev.Verdict != 1 || !strings.Contains(ev.Reason, "30 June 2025 − 90 days = 1 April 2025") {
		t.Errorf("computed: %s", ev.Reason)
	}
	if ev := Support("Notice is due at least 90 days before the term ends on 30 June 2025, so by 1 May 2025.", q, contract); ev.Verdict != 0 || ev.Detector != DetectorNumber {
		t.Errorf("computed wrong: %s", ev.Reason)
	}
	// A time of day is no count a bare field's number is, nor a date's day
	// ("Credits: 12" says nothing of 10:00 on October 12).
	booking := []string{"Meeting Room Booking Rules\n- Cancel at least 48 hours before the booking start time for a full credit refund.", "Booking confirmation\nRoom: Juniper\nStart: 2024-10-14 10:00\nCredits: 12"}
	bq := "What's the latest I can cancel the Juniper booking and still get all my credits back?"
	if ev := Support("You'd need to cancel by 10:00 on October 12 to get all 12 credits back.", bq, booking); ev.Verdict != 1 {
		t.Errorf("computed by hours: %s", ev.Reason)
	}
	if ev := Support("You'd need to cancel by 10:00 on October 13 to get all 12 credits back.", bq, booking); ev.Verdict != 0 || ev.Detector != DetectorNumber {
		t.Errorf("computed by hours, wrong: %s", ev.Reason)
	}
	settle := []string{"结算周期：货款在买家确认收货7天后结算到商家绑定的对公账户。", "遇法定节假日顺延。"}
	if ev := Support("货款在买家确认收货7天后结算到对公账户，即3月11日结算到对公账户。", "3月4日确认收货，哪天结算？", settle); ev.Verdict != 1 || !strings.Contains(ev.Reason, "3月4日 + 7天 = 3月11日") {
		t.Errorf("computed zh: %s", ev.Reason)
	}
}

// Two chunks that each give one thing's value support a statement that
// gives each thing its own, not one that gives each the other's.
func TestValuesAcrossChunksStayWithTheirThings(t *testing.T) {
	ctx := []string{"Q2 latency report, Oslo region: median API latency 48 ms.", "Q2 latency report, Lisbon region: median API latency 63 ms."}
	q := "What was the median API latency of each region in Q2?"
	if ev := Support("Oslo's median API latency in Q2 was 48 ms, against 63 ms in Lisbon.", q, ctx); ev.Verdict != 1 {
		t.Errorf("each its own: %s", ev.Reason)
	}
	if ev := Support("Lisbon's median API latency in Q2 was 48 ms, against 63 ms in Oslo.", q, ctx); ev.Verdict != 0 {
		t.Errorf("each the other's: %s", ev.Reason)
	}
}

// TestTopicNamesTheCell: a statement that names a table's row and leaves
// its column to the answer's statement before it ("香港属于港澳台地区。
// 扫地机在该地区保修三年。") is checked against that cell.
func TestTopicNamesTheCell(t *testing.T) {
	warranty := "| 产品线 | 中国大陆 | 港澳台 | 海外 |\n|---|---|---|---|\n| 洗地机 | 2年 | 1年 | 1年 |\n| 扫地机 | 4年 | 3年 | 2年 |"
	enPlans := "| Plan | EU | APAC | LATAM |\n|---|---|---|---|\n| Basic | 10 GB | 5 GB | 5 GB |\n| Pro | 200 GB | 100 GB | 50 GB |"
	j := New()
	for _, c := range []enterpriseCase{
		{"table topic zh faithful", "在香港买的扫地机保修几年？", "香港属于港澳台地区。扫地机在该地区保修三年。", []string{warranty, "注：香港、澳门、台湾地区统称港澳台地区。"}, true, ""},
		{"table topic zh unfaithful", "在香港买的扫地机保修几年？", "香港属于港澳台地区。扫地机在该地区保修四年。", []string{warranty, "注：香港、澳门、台湾地区统称港澳台地区。"}, false, "港澳台"},
		{"table topic en faithful", "How much storage does a Pro customer in Canada get?", "Accounts registered in Canada are served from the APAC region. On the Pro plan that region gets 100 GB.", []string{enPlans, "Accounts registered in Canada are served from the APAC region."}, true, ""},
		{"table topic en unfaithful", "How much storage does a Pro customer in Canada get?", "Accounts registered in Canada are served from the APAC region. On the Pro plan that region gets 200 GB.", []string{enPlans, "Accounts registered in Canada are served from the APAC region."}, false, "APAC"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &eval.Sample{ID: "x", Question: c.question, Answer: c.answer, Contexts: c.contexts}
			stmts, _ := j.Statements(context.Background(), s)
			vs, _ := j.Verdicts(context.Background(), s, stmts)
			last := vs[len(vs)-1]
			if want := map[bool]int{true: 1, false: 0}[c.faithful]; last.Verdict != want {
				t.Errorf("%q: verdict %d, want %d: %s", last.Statement, last.Verdict, want, last.Reason)
			}
			if !strings.Contains(last.Reason, c.mustName) {
				t.Errorf("%q: the reason does not name %q: %s", last.Statement, c.mustName, last.Reason)
			}
		})
	}
}

// TestAnswerOwnWording: a statement whose own numbers and names a sentence
// gives all, with every word it repeats from the question, is supported
// under SupportThreshold (down to AnchoredThreshold) when it lacks no more
// than anchoredMissing words of its own: the answer's phrasing of them.
func TestAnswerOwnWording(t *testing.T) {
	plans := []string{"The Basic plan allows up to 25 concurrent users and includes 50 GB of storage. The Pro plan raises the limit to 100 concurrent users and adds audit logs.",
		"Tallow Metrics, a competing tool, caps its starter tier at 10 concurrent users."}
	q := "How many concurrent users does the Basic plan of Orvel Cloud allow?"
	checkSupport(t, []supportCase{
		{"the value in other words", q, "Orvel Cloud's Basic plan permits up to 25 users at the same time.", plans, 1, "lacks only the answer's own words: permit, tim"},
		{"another plan's value", q, "Orvel Cloud's Basic plan permits up to 100 users at the same time.", plans, 0, ""},
		{"a competitor's value", q, "Orvel Cloud's Basic plan permits up to 10 users at the same time.", plans, 0, ""},
		{"three words of its own missing", q, "Orvel Cloud's Basic plan quietly permits up to 25 users at the same time.", plans, 0, "needs 0.67"},
	})
	for _, tt := range []struct {
		name, q, st, cs string
		want            bool
	}{
		{"its value and the question's words", q, "Orvel Cloud's Basic plan permits up to 25 users at the same time.", plans[0], true},
		{"a value the sentence lacks", q, "Orvel Cloud's Basic plan permits up to 25 users and 60 GB.", plans[0], false},
		{"a word of the question the sentence lacks", "In which state are the Longbay drug stores located?", "The Longbay drug stores are located in Oregon.", "Warren Pike ran Longbay Drug Corp out of Oregon before 2008.", false},
		{"no value of its own", q, "The Basic plan of Orvel Cloud permits many users at the same time.", plans[0], false},
		{"another measure word", "备件还有几套？", "该型号备件在仓库里目前还有2套可以使用", "2号仓库存放该型号备件，库存充足可以使用", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := valuesIn(analyze(tt.st), analyze(tt.q), analyzeContext(tt.cs)); got != tt.want {
				t.Errorf("valuesIn(%q) = %v, want %v", tt.st, got, tt.want)
			}
		})
	}
}

// TestValueInAnotherClause: a statement's own value that its sentence gives
// in a clause without the statement's word tying it, while another clause
// ties that word to another value of the value's kind (a number in its
// unit, an English name), is refuted, naming both clauses; the right value,
// or one whose clause has the word, is supported.
func TestValueInAnotherClause(t *testing.T) {
	tunnel := []string{"桐岭隧道全长4.2公里。经过三年施工，隧道于2016年全线贯通，并于2018年随城际铁路一同投入使用。"}
	college := []string{"Harwick College is a small liberal arts college in Vermont. It was founded in 1921, although its music school traces its origins to a singing academy opened in 1868."}
	visits := []string{"东院区：探访时间每日9:00–17:00，每次探访不超过60分钟，每次最多2人。"}
	checkSupport(t, []supportCase{
		{"zh: the year of another clause's verb", "桐岭隧道是在哪一年贯通的？", "桐岭隧道是在2018年贯通的。", tunnel, 0, "of another value"},
		{"zh: the year of its own verb", "桐岭隧道是在哪一年贯通的？", "桐岭隧道是在2016年贯通的。", tunnel, 1, ""},
		{"en: the year another clause gives", "When was Harwick College founded?", "Harwick College was founded in 1868.", college, 0, "of another value"},
		{"en: the year its clause gives", "When was Harwick College founded?", "Harwick College was founded in 1921.", college, 1, ""},
		// 2人 is no rival of 60分钟: another unit.
		{"zh: another clause's number in another unit", "每次探访最长多久？", "每次探访最多60分钟。", visits, 1, ""},
	})
}

// TestUnitsWrittenOtherwise: a number the context gives in a unit of
// another kind (an area) does not give the statement's (a length), though
// the number is the same; one the context gives in a multiple of its unit
// does (years as months, kilometres as metres, an hour and a half as
// minutes, centimetres as millimetres, 三块五 as 3.5元, 早6点 as 6:00, euros
// as €, 万分之五 as 0.05%, 1.5倍 as 150%, $1.2M as $1,200,000, 三万五 as
// 35,000). A total that a rate the context
// gives times the answer's own count makes is the answer's arithmetic (a
// date's parts make none), and counts as found; a range's first number has its second's unit; a
// unit written otherwise ("kilograms" for "kg") is the same; and a reason
// names a Chinese unit whole (2小时, not 2小).
// An ordinal word is its number written with a suffix ("fifth", 5th), as
// a number word is its number.
func TestOrdinalWords(t *testing.T) {
	tiers := []string{"Incoming inspection frequency by supplier tier:\n- Tier A: skip-lot, inspect every 5th lot\n- Tier B: inspect every lot at normal level"}
	q := "How often are Tier A lots inspected?"
	checkSupport(t, []supportCase{
		{"", q, "Tier A suppliers get skip-lot inspection: every fifth lot is inspected.", tiers, 1, `field "Tier A" gives skip-lot, inspect every 5th lot`},
		{"", q, "Tier A suppliers get skip-lot inspection: every sixth lot is inspected.", tiers, 0, "sixth"},
	})
}

func TestUnitsWrittenOtherwise(t *testing.T) {
	checkSupport(t, []supportCase{
		{"zh", "流经柳溪镇的河流全长多少公里？", "流经柳溪镇的河流全长64公里。", []string{"柳溪镇是清平县下辖的一个镇，镇域面积64平方公里，人口约三万。"}, 0, "64公里"},
		{"en", "How long is the river that runs through Alder Vale?", "The river that runs through Alder Vale is 64 km long.", []string{"Alder Vale is a village of 3,000 people whose parish covers 64 square kilometres."}, 0, ""},
		{"zh years as months", "质保期多长？", "质保期为两年。", []string{"质保期为24个月，自交付之日起算。"}, 1, "2年 is 24个月"},
		{"zh an hour and a half", "午休多长时间？", "午休一个半小时。", []string{"午休时间为90分钟。"}, 1, ""},
		{"zh hours named whole", "校车单程最长坐多久？", "校车单程最长坐2小时。", []string{"校车单程乘车时间原则上不超过45分钟。"}, 0, "2小时 where"},
		{"zh kilometres as metres", "工地离车站多远？", "工地距车站1.5公里。", []string{"工地距车站1500米。"}, 1, "1.5公里 is 1500米"},
		{"en kilometres as metres", "How far is the depot from the station?", "The depot is 1.5 kilometres from the station.", []string{"The depot is 1500 metres from the station."}, 1, "1.5 kilometres is 1500 metres"},
		{"en a range's unit, through two steps", "How high must the top rail be?", "The top rail has to sit between 95 and 110 centimetres above the floor.", []string{"Top rails shall be 950 mm to 1,100 mm above the floor."}, 1, "110 centimetres is 1,100 mm"},
		{"en a quarter of an hour", "How long is an account locked?", "It stays locked for a quarter of an hour.", []string{"After five failed attempts the account is locked for 15 minutes."}, 1, ""},
		{"en the same unit written otherwise", "What is the checked bag weight limit?", "Up to 23 kilograms.", []string{"Each checked bag may weigh up to 23 kg."}, 1, ""},
		{"zh money as it is said", "票价多少？", "票价三块五。", []string{"票价为3.5元。"}, 1, ""},
		{"zh 块 for 元", "押金多少？", "押金两千块。", []string{"押金：2,000元"}, 1, ""},
		{"zh a clock time as it is said", "几点交班？", "次日早6点交班。", []string{"次日6:00交班。"}, 1, ""},
		{"en euros", "What is the late fee?", "It is 1,500 euros.", []string{"A late fee of €1,500 applies."}, 1, ""},
		{"en a currency's code before the amount", "What does the Linde forklift at Bay 4 cost to hire?", "The Linde forklift at Bay 4 (unit 77) costs EUR 2,150 a month.", []string{fleet}, 1, "2,150"},
		{"en a currency's name after its country", "What does a late checkout cost?", "A late checkout is 40 US dollars.", []string{"Late checkout fee: USD 40 (until 14:00)\nExtra bed fee: USD 35 per night"}, 1, ""},
		{"en another field's amount in its currency", "What does a late checkout cost?", "A late checkout is 35 US dollars.", []string{"Late checkout fee: USD 40 (until 14:00)\nExtra bed fee: USD 35 per night"}, 0, "35 us dollars"},
		{"en another currency", "What may a client dinner cost per guest?", "A client dinner may cost up to seventy US dollars per guest.", []string{"A client dinner may cost up to EUR 70 per guest, drinks included."}, 0, "seventy us dollars where the context gives eur 70"},
		{"en the currency as a word", "What may a client dinner cost per guest?", "A client dinner may cost up to seventy euros per guest.", []string{"A client dinner may cost up to EUR 70 per guest, drinks included."}, 1, ""},
		{"en a number word's unit after a modifier", "How long is a new deposit held?", "A new deposit is held for ten calendar days.", []string{"New deposits are subject to a 10-calendar-day hold."}, 1, ""},
		{"en another number word's unit after a modifier", "How long is a new deposit held?", "A new deposit is held for seven calendar days.", []string{"New deposits are subject to a 10-calendar-day hold."}, 0, "seven calendar days"},
		{"en another row's amount after its code", "What does the Linde forklift at Bay 4 cost to hire?", "The Linde forklift at Bay 4 (unit 77) costs EUR 1,900 a month.", []string{fleet}, 0, "eur 1,900 where cell (77, Monthly hire (EUR))"},
		{"zh per ten thousand", "逾期违约金怎么算？", "每逾期一日按押金总额的万分之五支付违约金。", []string{"逾期退还的，每逾期一日按押金总额的0.05%支付违约金。"}, 1, ""},
		{"zh 名 and 人 count people", "部门有多少员工？", "部门共有120名员工。", []string{"部门员工总数：120人"}, 1, ""},
		{"zh times as percent", "工作日加班怎么算？", "工作日加班按1.5倍工资支付。", []string{"工作日延长工作时间的，按小时工资基数的150%支付。"}, 1, "1.5倍 is 150%"},
		{"zh another multiple", "休息日加班怎么算？", "休息日加班按三倍工资支付。", []string{"休息日加班按小时工资基数的200%支付。"}, 0, "3倍"},
		{"en a rate times the answer's count", "How much is the meal allowance for a 3-day trip?", "The meal allowance for a 3-day trip is $180, at $60 a day.", []string{"On any business trip, the meal allowance is $60 a day."}, 1, "$60 × 3-day = $180"},
		{"en millions written out", "What is the project budget?", "The project budget is $1.2 million.", []string{"The project budget is $1,200,000 for the year."}, 1, ""},
		{"en millions as M", "What is the project budget?", "The project budget is $1,200,000.", []string{"The project budget is $1.2M for the year."}, 1, ""},
		{"zh 三万五 as said", "月薪多少？", "月薪三万五。", []string{"该岗位月薪35,000元。"}, 1, ""},
		{"zh a total the answer computes counts as found", "加修5张照片要多少钱？", "加修5张照片，每张60元，共300元。", []string{"加修照片每张60元。"}, 1, "60元 × 5张 = 300元"},
		{"en a product the rate does not make", "How much is the meal allowance for a 3-day trip?", "The meal allowance for a 3-day trip is $200, at $60 a day.", []string{"On any business trip, the meal allowance is $60 a day."}, 0, "$200"},
		{"en days as hours", "How early must a hotel booking be cancelled?", "You need to cancel at least two days before check-in.", []string{"Hotel reservations must be cancelled at least 48 hours before check-in."}, 1, "two days is 48 hours"},
		{"zh hours as days", "提前多久申请？", "须提前两天书面申请。", []string{"须提前48小时提交书面申请。"}, 1, "2天 is 48小时"},
		{"en another number of days as hours", "How early must a hotel booking be cancelled?", "You need to cancel at least three days before check-in.", []string{"Hotel reservations must be cancelled at least 48 hours before check-in."}, 0, "three days where"},
		{"en a date's day is no span of hours", "How many hours of training must a manager complete?", "Ten hours a year, with a three-hour module on safe lifting, all done by 30 November.", []string{"- Managers: 10 hours per year, with an extra 3-hour module on safe lifting.\n- Deadline: 30 November each year."}, 1, ""},
		{"en a number word joined to its unit", "How often are laptops replaced?", "Laptops are on a three-year refresh cycle.", []string{"Laptops are replaced on a refresh cycle of 36 months."}, 1, "three-year is 36 months"},
		{"en another number word joined to its unit", "How often are laptops replaced?", "Laptops are on a four-year refresh cycle.", []string{"Laptops are replaced on a refresh cycle of 36 months."}, 0, "four-year"},
		{"en an amount glossed in brackets", "How much of a regular medicine can I get by post?", "The postal pharmacy can send up to a three-month (90-day) supply of a regular medicine per fill.", []string{"Regular medicines can be sent by the postal pharmacy in up to a 90-day supply per fill."}, 1, ""},
		{"en a wrong amount glossed in brackets", "How much of a regular medicine can I get by post?", "The postal pharmacy can send up to a two-month (60-day) supply of a regular medicine per fill.", []string{"Regular medicines can be sent by the postal pharmacy in up to a 90-day supply per fill."}, 0, "60-day"},
		{"en no product of a date's parts", "When will Round 2 decisions come out?", "Round 2 decisions will be released by 28 April 2025.", []string{"Round 2 (2025 entry)\nInterviews: late February to mid-March 2025\nDecisions released: by 28 March 2025"}, 0, "april"},
	})
}

// fleet is a hire table whose rows share a maker and a site, so a row is
// told by its unit number.
const fleet = "| Unit | Maker | Site | Monthly hire (EUR) |\n|---|---|---|---|\n| 31 | Linde | Bay 4 | 1,900 |\n| 52 | Jungheinrich | Bay 2 | 1,750 |\n| 77 | Linde | Bay 4 | 2,150 |"

// TestYearNamesAShare: a year is a word that names a piece of a sentence of
// shares, so a value the statement dates by its piece's year is that
// piece's ("worth $1.7 billion as of 2015" beside "$170 million in 2014
// sales"), and one it gives the other piece's year is not.
func TestYearNamesAShare(t *testing.T) {
	ctx := []string{"Orvel Foods had $170 million in 2014 sales and was valued at $1.7 billion as of August 2015."}
	checkSupport(t, []supportCase{
		{"the value of its year", "What was Orvel Foods worth in 2015?", "Orvel Foods was worth $1.7 billion as of 2015.", ctx, 1, ""},
		{"the other year's value", "What were Orvel Foods' 2014 sales?", "Orvel Foods had $1.7 billion in 2014 sales.", ctx, 0, "the context gives"},
	})
}

// TestShortTotalSaysSomething: a short Chinese statement of a total the
// answer computes from given terms ("总共1,100元") says something of its own
// (the number its arithmetic makes), so it is supported with the
// arithmetic in the reason; a total the terms do not make is not.
func TestShortTotalSaysSomething(t *testing.T) {
	j := New()
	q := "加急办证总共交多少钱？"
	ctx := []string{"《证照收费标准》第2条：办理证照收取工本费800元。", "第5条：申请加急办理的，另收加急费300元。"}
	score, reasons, _ := scoreWith(t, j, q, "总共1,100元，即工本费800元，加上加急费300元。", ctx)
	if score != 1 || !strings.Contains(reasons[0], "800元 + 300元 = 1,100元") {
		t.Errorf("the right total scored %.2f: %s", score, strings.Join(reasons, " | "))
	}
	score, reasons, why := scoreWith(t, j, q, "总共1,200元，即工本费800元，加上加急费300元。", ctx)
	if score == 1 || !strings.Contains(why, "1,200元") {
		t.Errorf("a wrong total scored %.2f: %s", score, strings.Join(reasons, " | "))
	}
}

// TestTotalOfTwoChunks: a total the answer computes from a term in each of
// two chunks counts as found in their union, as it does in one sentence
// that gives its terms, so the two chunks support it together.
func TestTotalOfTwoChunks(t *testing.T) {
	ctx := []string{"Parking fine schedule\n- Overstay in a loading bay: $60\n- Blocking a fire lane: $120",
		"Late charges: a $25 late charge is added when a fine is still unpaid 14 days after issue."}
	q := "I parked too long in a loading bay and paid the fine three weeks late. How much do I owe?"
	checkSupport(t, []supportCase{
		{"the total of the two", q, "You owe $85 now: the $60 fine for the loading bay plus the $25 late charge.", ctx, 1, "$60 + $25 = $85"},
		{"a total the two do not make", q, "You owe $95 now: the $60 fine for the loading bay plus the $25 late charge.", ctx, 0, "$95"},
	})
}

// Two chunks joined keep each sentence's shares with their parties: the
// airport's EUR 60 is not the online price, and a bracketed aside ("up to
// 23 kg") and a number's word ("sixty") name no share.
func TestSharesOfAJoinedPair(t *testing.T) {
	ctx := []string{"Seat selection on Economy Light costs EUR 12 per flight segment.", "A first checked bag (up to 23 kg) can be added online for EUR 40 or at the airport for EUR 60."}
	q := "If I book Economy Light and add one checked bag online plus seat selection for one segment, how much extra do I pay?"
	checkSupport(t, []supportCase{
		{"", q, "Adding the bag online (EUR 40) and choosing a seat for one segment (EUR 12) comes to EUR 52 in extras.", ctx, 1, "eur 40 + eur 12 = eur 52"},
		{"", q, "Adding the bag online (EUR 60) and choosing a seat for one segment (EUR 12) comes to EUR 72 in extras.", ctx, 0, "the context gives eur 60 in \"at the airport for EUR 60.\""},
	})
}

// A total's unit word is found with its number where its terms are
// ("ninety-five dollars" of $80 and $15): the arithmetic is the reason's.
func TestTotalsUnitWord(t *testing.T) {
	ctx := []string{"Rental fees: the room costs $80 a night and parking costs $15 a night."}
	checkSupport(t, []supportCase{
		{"", "What do a room and parking cost for one night?", "The room is $80 and parking $15 a night, ninety-five dollars in all.", ctx, 1, "(coverage 1.00); $80 + $15 = 95 dollars"},
	})
}

// Two sentences of one chunk support a statement that computes a total or
// difference from them, each term written among words of its own sentence:
// a statement that writes one's value among the other's words ("中级…48课时")
// is not joined. A Chinese designator swapped for another (乙 for 甲) with
// the swapped party's sentence elsewhere is a conflict naming both.
func TestDifferenceWithinOneChunk(t *testing.T) {
	courses := []string{"初级会计实务课程共48课时，学费2800元；中级财务管理课程共64课时，学费4200元。"}
	cq := "中级财务管理比初级会计实务多多少课时？"
	suppliers := []string{"甲供应商交货期为60天。乙供应商交货期为45天。"}
	sq := "乙供应商比甲供应商交货期短多少天？"
	checkSupport(t, []supportCase{
		{"the difference of two sentences", cq, "中级财务管理共64课时，比初级会计实务的48课时多16课时。", courses, 1, "64课 − 48课 = 16课"},
		{"the two values swapped", cq, "中级财务管理共48课时，比初级会计实务的64课时少16课时。", courses, 0, "number conflict"},
		{"a difference of the right party's values", sq, "乙供应商交货期45天。", suppliers, 1, "coverage 1.00"},
		{"another party's value", sq, "乙供应商交货期60天。", suppliers, 0, "statement says 乙 (乙供) where the sentence says 甲 (甲供)"},
	})
}

// A swapped designator is read the same each time when the best sentence
// writes two others (甲 and 丙): the check does not hang on a map's order.
func TestPartySwapOfTwoDesignators(t *testing.T) {
	ctx := []string{"甲供应商和丙供应商交货期为60天。", "乙供应商与甲供应商同批发货。"}
	for range 50 {
		ev := Support("乙供应商交货期60天。", "乙供应商交货期多少天？", ctx)
		if ev.Verdict != 0 || !strings.Contains(ev.Reason, "statement says 乙 (乙供) where the sentence says 丙 (丙供)") {
			t.Fatalf("Support = %+v, want the swap of 乙 for 丙 each time", ev)
		}
	}
}

// A statement that leaves its subject to the answer's statement before it
// ("… is a Tier A supplier, so every lot is inspected at normal level") is
// not supported by another key's line of the list ("- Tier B: inspect
// every lot at normal level"); a statement that names its line's key in
// any word is left to the other checks.
func TestRuleOfAnotherListKey(t *testing.T) {
	j := New()
	tiers := []string{"Approved Supplier List\nSUP-114 Meridian Castings – Tier B\nSUP-207 Northgate Plastics – Tier A\nSUP-311 Keller Fasteners – Tier C",
		"Incoming inspection frequency by supplier tier:\n- Tier A: skip-lot, inspect every 5th lot\n- Tier B: inspect every lot at normal level\n- Tier C: 100% inspection of every lot"}
	docks := []string{"在泊船只登记：蓝鲸号停在A码头。", "码头区域说明\nA码头：浮动码头，提供30A岸电，水深3.5米。\nB码头：浮动码头，提供50A岸电，水深4.2米。\nC码头：固定码头，提供16A岸电，水深2.4米。"}
	for _, c := range []struct {
		q, answer string
		ctx       []string
		want      float64
		reason    string
	}{
		{"How often are incoming lots from Northgate Plastics inspected?", "Northgate Plastics (SUP-207) is a Tier A supplier, so every lot is inspected at normal level.", tiers, 0.5, `the answer speaks of "Tier A" before it; field "Tier B" gives this`},
		{"How often are incoming lots from Northgate Plastics inspected?", "Northgate Plastics (SUP-207) is a Tier A supplier, so it gets skip-lot inspection, every 5th lot.", tiers, 1, ""},
		{"A码头提供多大电流的岸电？", "蓝鲸号停在A码头。那里提供的是16A岸电。", docks, 0.5, `field "C码头" gives this`},
		{"A码头提供多大电流的岸电？", "蓝鲸号停在A码头。那里提供的是30A岸电。", docks, 1, ""},
	} {
		score, reasons, _ := scoreWith(t, j, c.q, c.answer, c.ctx)
		if score != c.want || c.reason != "" && !strings.Contains(strings.Join(reasons, " | "), c.reason) {
			t.Errorf("%q: F=%.2f %v, want %.2f with %q", c.answer, score, reasons, c.want, c.reason)
		}
	}
}
