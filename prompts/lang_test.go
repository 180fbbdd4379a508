package prompts

import "testing"

func TestDetectLang(t *testing.T) {
	tests := []struct {
		name  string
		texts []string
		want  string
	}{
		{"empty", nil, "en"},
		{"empty strings", []string{"", "  "}, "en"},
		{"digits and punctuation only", []string{"2024-01-01, 42%！"}, "en"},
		{"pure zh", []string{"小规模纳税人转为一般纳税人后，纳税人识别号会变吗？"}, "zh"},
		{"pure en", []string{"Does the taxpayer ID change after the conversion?"}, "en"},
		{"zh with English product names", []string{"请问 Kubernetes Ingress Controller 和 Nginx Ingress 有什么区别？"}, "zh"},
		{"zh with glued product names", []string{"如何在Kubernetes中配置Ingress控制器"}, "zh"},
		{"short zh with acronym", []string{"什么是RAG？"}, "zh"},
		{"en quoting a Chinese name", []string{"The contract was signed by 王小明 in Beijing last year."}, "en"},
		{"en question, zh answer", []string{"Does the ID change?", "不会变，纳税人识别号保持不变，无需重新办理税务登记。"}, "zh"},
		{"zh question, long en answer", []string{"会变吗？", "No. The taxpayer identification number stays the same after the company converts, and no new registration is needed."}, "en"},
		{"Japanese kana only", []string{"これはテストです"}, "en"},
	}
	for _, tt := range tests {
		if got := DetectLang(tt.texts...); got != tt.want {
			t.Errorf("%s: DetectLang(%q) = %s, want %s", tt.name, tt.texts, got, tt.want)
		}
	}
}
