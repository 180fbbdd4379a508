package e2e

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// TestExcelDataset: a workbook as a team keeps its evaluation set (a notes
// sheet first, Chinese headers, numbered chunk columns) is evaluated with
// --map and --sheet; a bad row is named by sheet, row and cell.
func TestExcelDataset(t *testing.T) {
	needBinary(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "评测.xlsx")
	f := excelize.NewFile()
	f.SetSheetName("Sheet1", "说明")
	f.SetSheetRow("说明", "A1", &[]any{"填写说明"})
	f.NewSheet("评测集")
	for i, row := range [][]any{
		{"问题", "回答", "检索片段1", "检索片段2", "标准答案"},
		{"税号会变吗？", "不会变。", "纳税人识别号保持不变。", "", "不变"},
		{"要重新登记吗？", "不需要。", "", "无需重新办理税务登记。", "不需要"},
		{nil, "没有问题的回答", "片段"},
	} {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow("评测集", cell, &row); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.SaveAs(path); err != nil {
		t.Fatal(err)
	}
	f.Close()
	jsonl := filepath.Join(dir, "d.jsonl")
	os.WriteFile(jsonl, []byte(`{"user_input":"q","response":"a"}`+"\n"), 0o644)
	m := "question=问题,answer=回答,contexts=检索片段,reference=标准答案"

	r := runBin(t, cleanEnv(t), "run", "--headless", "--map", m, path)
	if want := path + `: sheet "评测集" row 4 (A4): field "question": is empty`; r.code != exitUsage || !strings.Contains(r.stderr, want) {
		t.Fatalf("exit %d, stderr lacks %q:\n%s", r.code, want, r.stderr)
	}
	for _, sheet := range []string{"评测集", "2"} {
		r = runBin(t, cleanEnv(t), "run", "--headless", "--skip-invalid", "--map", m, "--sheet", sheet, path)
		if r.code != exitOK || !strings.Contains(r.stderr, `sheet "评测集" row 4 (A4)`) {
			t.Fatalf("--sheet %s --skip-invalid: exit %d, want the skipped row named:\n%s", sheet, r.code, r.stderr)
		}
		rep := decodeReport(t, r.stdout)
		var got [][]string
		for _, s := range rep.Samples {
			got = append(got, s.Contexts)
		}
		if want := [][]string{{"纳税人识别号保持不变。"}, {"无需重新办理税务登记。"}}; !reflect.DeepEqual(got, want) || rep.Run.Skipped != 1 {
			t.Fatalf("contexts %q (want %q), %d skipped", got, want, rep.Run.Skipped)
		}
	}
	r = runBin(t, cleanEnv(t), "run", "--headless", "--sheet", "1", jsonl)
	if r.code != exitUsage || !strings.Contains(r.stderr, "--sheet applies to Excel workbooks") {
		t.Fatalf("--sheet on JSON Lines: exit %d:\n%s", r.code, r.stderr)
	}
}
