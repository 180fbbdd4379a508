package dataset

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/dataset/internal/read"
)

// xlSheet is a worksheet of a test workbook: rows from A1, and the merged
// ranges ("G2:G3"). A cell may be an excelize.Cell, for a formula with the
// value Excel would have saved with it, or a style.
type xlSheet struct {
	name   string
	rows   [][]any
	merges []string
}

// xlsxBytes writes a workbook the way excelize does, streaming its rows;
// styles turns a number format into a style for xlStyled.
func xlsxBytes(tb testing.TB, sheets ...xlSheet) []byte {
	tb.Helper()
	f := excelize.NewFile()
	defer f.Close()
	for i, s := range sheets {
		if i == 0 {
			if err := f.SetSheetName("Sheet1", s.name); err != nil {
				tb.Fatal(err)
			}
		} else if _, err := f.NewSheet(s.name); err != nil {
			tb.Fatal(err)
		}
		sw, err := f.NewStreamWriter(s.name)
		if err != nil {
			tb.Fatal(err)
		}
		for r, row := range s.rows {
			cells := make([]any, len(row))
			for i, v := range row {
				if st, ok := v.(xlStyled); ok {
					style := &excelize.Style{CustomNumFmt: &st.format}
					if st.format == "" {
						style = &excelize.Style{NumFmt: 14} // the system's short date
					}
					id, err := f.NewStyle(style)
					if err != nil {
						tb.Fatal(err)
					}
					v = excelize.Cell{StyleID: id, Value: st.value}
				}
				cells[i] = v
			}
			cell, _ := excelize.CoordinatesToCellName(1, r+1)
			if err := sw.SetRow(cell, cells); err != nil {
				tb.Fatal(err)
			}
		}
		for _, m := range s.merges {
			from, to, _ := strings.Cut(m, ":")
			if err := sw.MergeCell(from, to); err != nil {
				tb.Fatal(err)
			}
		}
		if err := sw.Flush(); err != nil {
			tb.Fatal(err)
		}
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// xlStyled is a cell value shown through a number format; "" is the
// system's short date, Excel's default for a date.
type xlStyled struct {
	value  any
	format string
}

// evalWorkbook is what a team's evaluation set looks like: a notes sheet
// first, then the set with Chinese headers, numbered chunk columns out of
// order, a formula, a reference merged over two rows, dates and a
// percentage; then a sheet in RAGAS's names with a list column.
func evalWorkbook(tb testing.TB) []byte {
	return xlsxBytes(tb,
		xlSheet{name: "说明", rows: [][]any{{"本工作簿是评测集"}, {"填写说明", "每行一个问题"}}},
		xlSheet{name: "评测集", rows: [][]any{
			{"编号", "问题", "回答", "检索片段2", "检索片段1", "检索片段10", "标准答案", "备注"},
			{"q1", "税号会变吗？", excelize.Cell{Formula: `"不会"&"变"`, Value: "不会变"}, "片段二", "片段一", "片段十", "不变", "ok"},
			{"q2", "问题二", "回答二", "只有二", "", nil, nil},
			{xlStyled{45352, ""}, "数字", xlStyled{0.5, "0.00%"}, nil, nil, nil, xlStyled{45353.5, "yyyy年m月d日 hh:mm"}},
		}, merges: []string{"G2:G3"}},
		xlSheet{name: "list", rows: [][]any{
			{"question", "answer", "contexts"},
			{"q", "a", `["c1", "", "c2"]`},
		}},
	)
}

var evalMap = map[string]string{"id": "编号", "question": "问题", "answer": "回答", "contexts": "检索片段", "reference": "标准答案"}

func TestXLSX(t *testing.T) {
	book := evalWorkbook(t)
	set := []eval.Sample{
		{Index: 0, Line: 2, ID: "q1", Question: "税号会变吗？", Answer: "不会变", Contexts: []string{"片段一", "片段二", "片段十"}, Reference: "不变"},
		{Index: 1, Line: 3, ID: "q2", Question: "问题二", Answer: "回答二", Contexts: []string{"只有二"}, Reference: "不变"},
		{Index: 2, Line: 4, ID: "2024-03-01", Question: "数字", Answer: "50.00%", Reference: "2024年3月2日 12:00"},
	}
	list := []eval.Sample{{Line: 2, Question: "q", Answer: "a", Contexts: []string{"c1", "c2"}}}
	for _, tc := range []struct {
		name  string
		opt   Options
		want  []eval.Sample
		err   string
		input []byte
	}{
		{name: "first sheet with the mapped columns", opt: Options{Map: evalMap}, want: set},
		{name: "sheet by name", opt: Options{Map: evalMap, Sheet: "评测集"}, want: set},
		{name: "sheet by number", opt: Options{Map: evalMap, Sheet: "2"}, want: set},
		{name: "sheet name ignoring case", opt: Options{Sheet: "LIST"}, want: list},
		{name: "first sheet with the default columns", want: list},
		{name: "no such sheet", opt: Options{Sheet: "9"},
			err: `data.xlsx: --sheet "9": the workbook has no such sheet — its sheets are 1 "说明", 2 "评测集", 3 "list"; pass a name or a number`},
		{name: "sheet without the columns", opt: Options{Map: evalMap, Sheet: "说明"},
			err: `data.xlsx: sheet "说明" row 1: matches no known dataset layout`},
		{name: "no sheet has the columns", opt: Options{Map: map[string]string{"question": "问", "answer": "答"}},
			err: `data.xlsx: no sheet has a header row with the columns needed (question: 问; answer: 答) — the sheets hold "说明" row 1: 本工作簿是评测集; ` +
				`"评测集" row 1: 回答, 备注, 标准答案, 检索片段1, 检索片段10, 检索片段2, 编号, 问题; "list" row 1: answer, contexts, question; ` +
				`pick the sheet with --sheet NAME or --sheet N and name its columns with --map question=<column>,answer=<column>`},
		{name: "a header and no rows", input: xlsxBytes(t, xlSheet{name: "评测集", rows: [][]any{{"question", "answer"}}}),
			err: `data.xlsx: sheet "评测集": no samples — the header (row 1) has no rows under it; put one sample a row below it, or pick another sheet with --sheet`},
		{name: "a CSV file named .xlsx", input: []byte("question,answer\nq,a\n"),
			err: "data.xlsx: cannot read it as an Excel workbook (zip: not a valid zip file) — the file is damaged, truncated, password-protected or not .xlsx; save it from Excel as .xlsx (an old .xls too), or give a CSV file the .csv extension"},
		{name: "truncated", input: book[:len(book)/2], err: "data.xlsx: cannot read it as an Excel workbook ("},
		{name: "a zip that is not a workbook", input: zipOf(t, "hello.txt", "hi"),
			err: "data.xlsx: cannot read it as an Excel workbook (a zip archive without xl/workbook.xml, so not a workbook) — "},
		{name: "a workbook without its parts", input: zipOf(t, "xl/workbook.xml", "<workbook/>"),
			err: "data.xlsx: cannot read it as an Excel workbook (a part of the workbook ends early (EOF)) — "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := book
			if tc.input != nil {
				in = tc.input
			}
			path := filepath.Join(t.TempDir(), "data.xlsx")
			if err := os.WriteFile(path, in, 0o644); err != nil {
				t.Fatal(err)
			}
			l, err := sameAsLoad(t, path, tc.opt)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(strings.Replace(err.Error(), path, "data.xlsx", 1), tc.err) {
					t.Fatalf("error %v, want one starting %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if l.Format != FormatXLSX || !reflect.DeepEqual(l.Samples, tc.want) {
				t.Fatalf("format %s, samples\n%+v\nwant\n%+v", l.Format, l.Samples, tc.want)
			}
			// The same from a reader, and from a name that says nothing.
			r, err := Read("data", bytes.NewReader(in), tc.opt)
			if err != nil || !reflect.DeepEqual(r.Samples, tc.want) || r.SHA256 != l.SHA256 {
				t.Fatalf("Read: %v, %+v", err, r)
			}
		})
	}
}

// zipOf is a zip archive holding one file.
func zipOf(tb testing.TB, name, content string) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create(name)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write([]byte(content))
	if err := zw.Close(); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// TestXLSXInvalid: a bad row names the sheet, row and cell; --skip-invalid
// lists it so and reads the rest; the record limit holds for rows.
func TestXLSXInvalid(t *testing.T) {
	book := xlsxBytes(t, xlSheet{name: "评测集", rows: [][]any{
		{"标题：税务问答评测"},
		{},
		{"问题", "回答", "检索片段1", "检索片段2"},
		{"q1", "a1", "c1"},
		{nil, "没有问题的回答", "c"},
		{"q3", "a3", "", "c2"},
		{"q4", strings.Repeat("长", 100), "c4"},
	}})
	path := filepath.Join(t.TempDir(), "data.xlsx")
	if err := os.WriteFile(path, book, 0o644); err != nil {
		t.Fatal(err)
	}
	m := map[string]string{"question": "问题", "answer": "回答", "contexts": "检索片段"}
	_, err := sameAsLoad(t, path, Options{Map: m})
	want := path + `: sheet "评测集" row 5 (A5): field "question": is empty — every sample needs a question (or pass --skip-invalid to evaluate the other records)`
	if err == nil || err.Error() != want {
		t.Fatalf("error %v\nwant %s", err, want)
	}
	l, err := sameAsLoad(t, path, Options{Map: m, SkipInvalid: true, MaxRecordBytes: 200})
	if err != nil {
		t.Fatal(err)
	}
	wantSkips := []Skip{
		{Sheet: "评测集", Cell: "A5", Line: 5, Field: "question", Reason: "is empty — every sample needs a question", Unit: read.UnitRow},
		{Sheet: "评测集", Cell: "B7", Line: 7, Field: "answer", Unit: read.UnitRow,
			Reason: `the record is 304 bytes (304 bytes; column "回答" holds 300 bytes), over the limit of 200 bytes per record — raise the limit with --max-record-bytes`},
	}
	if !reflect.DeepEqual(l.Skipped, wantSkips) {
		t.Fatalf("skipped %+v\nwant %+v", l.Skipped, wantSkips)
	}
	wantSamples := []eval.Sample{
		{Index: 0, Line: 4, Question: "q1", Answer: "a1", Contexts: []string{"c1"}},
		{Index: 1, Line: 6, Question: "q3", Answer: "a3", Contexts: []string{"c2"}},
	}
	if !reflect.DeepEqual(l.Samples, wantSamples) {
		t.Fatalf("samples %+v", l.Samples)
	}
	if got := l.SkipError(l.Skipped[0]).Error(); !strings.HasPrefix(got, path+`: sheet "评测集" row 5 (A5): field "question"`) {
		t.Fatalf("SkipError: %s", got)
	}
}

// TestNumberedContexts: contexts from numbered columns read the same way
// in CSV; --sheet is refused for what is not a workbook.
func TestNumberedContexts(t *testing.T) {
	m := map[string]string{"question": "问题", "answer": "回答", "contexts": "检索片段"}
	for _, tc := range []struct {
		name, in string
		opt      Options
		want     [][]string
		err      string
	}{
		{name: "in number order, empty cells no chunk", in: "问题,回答,检索片段10,检索片段2,检索片段1\nq,a,c10,,c1\nq2,a2,,,\n", opt: Options{Map: m},
			want: [][]string{{"c1", "c10"}, nil}},
		{name: "default names numbered", in: "question,answer,context1,context2\nq,a,c1,c2\n", want: [][]string{{"c1", "c2"}}},
		{name: "one column wins over numbered ones", in: "question,answer,contexts,contexts1\nq,a,\"[\"\"x\"\",\"\"y\"\"]\",z\n", want: [][]string{{"x", "y"}}},
		{name: "a number twice", in: "问题,回答,检索片段1,检索片段01\nq,a,c,d\n", opt: Options{Map: m},
			err: `data.csv: row 1: field "contexts": the header has two columns numbered 1 for the contexts, "检索片段1" (column 3) and "检索片段01" (column 4) — rename one`},
		{name: "--sheet on CSV", in: "question,answer\nq,a\n", opt: Options{Sheet: "1"},
			err: "data.csv: --sheet applies to Excel workbooks (.xlsx), and this file is read as csv — drop --sheet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Read("data.csv", strings.NewReader(tc.in), tc.opt)
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("error %v\nwant %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got [][]string
			for _, s := range l.Samples {
				got = append(got, s.Contexts)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("contexts %q, want %q", got, tc.want)
			}
		})
	}
}

// bigWorkbook writes a workbook of n rows of about 1 KB of distinct text
// each: in inline strings, as excelize's stream writer writes them, or in a
// shared-string table, as Excel saves them.
func bigWorkbook(tb testing.TB, path string, n int, shared bool) {
	f := excelize.NewFile()
	defer f.Close()
	var sw *excelize.StreamWriter
	setRow := func(cell string, row []any) error { return f.SetSheetRow("Sheet1", cell, &row) }
	if !shared {
		var err error
		if sw, err = f.NewStreamWriter("Sheet1"); err != nil {
			tb.Fatal(err)
		}
		setRow = func(cell string, row []any) error { return sw.SetRow(cell, row) }
	}
	if err := setRow("A1", []any{"编号", "问题", "回答", "检索片段1", "检索片段2", "标准答案"}); err != nil {
		tb.Fatal(err)
	}
	chunk := strings.Repeat("纳税人识别号保持不变。", 10) // 300 bytes of CJK
	for i := range n {
		cell, _ := excelize.CoordinatesToCellName(1, i+2)
		row := []any{fmt.Sprintf("s%d", i), fmt.Sprintf("问题 %d：税号会变吗？", i), fmt.Sprintf("不会变 %d。%s", i, chunk),
			fmt.Sprintf("%d %s", i, chunk), fmt.Sprintf("%s %d", chunk, i), "不变"}
		if err := setRow(cell, row); err != nil {
			tb.Fatal(err)
		}
	}
	if sw != nil {
		if err := sw.Flush(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := f.SaveAs(path); err != nil {
		tb.Fatal(err)
	}
}

// TestXLSXStreamMemory: streaming a 100,000-row worksheet (about 100 MB of
// cell text) grows the live heap by a bounded amount: the worksheet is read
// from a temporary file a row at a time. Inline strings cost nothing per
// row; a shared-string table larger than xlsxInMemory is read from a
// temporary file too, through excelize's index of where each string is
// (tens of bytes a string), so the bound for it is larger. Writing the
// workbook takes minutes under the race detector, so there (and with
// -short) 2,000 rows check the stream's order and shape only, well under
// any bound; the figure is the run without them (go test -run
// TestXLSXStreamMemory -v ./eval/dataset).
func TestXLSXStreamMemory(t *testing.T) {
	n := 100_000
	if raceEnabled || testing.Short() {
		n = 2_000
	}
	opt := Options{Map: map[string]string{"id": "编号", "question": "问题", "answer": "回答", "contexts": "检索片段", "reference": "标准答案"}}
	for _, tc := range []struct {
		name   string
		shared bool
		bound  uint64
	}{
		{"inline strings", false, 16 << 20},
		{"shared strings", true, 48 << 20},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "big.xlsx")
			bigWorkbook(t, path, n, tc.shared)
			s, err := Scan(path, opt)
			if err != nil || s.Count != n {
				t.Fatalf("Scan: %v, %+v", err, s)
			}
			var ms runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms)
			base := ms.HeapAlloc
			var peak uint64
			seen := 0
			err = Stream(path, opt, s, func(x eval.Sample) bool {
				if x.Index != seen || x.ID != fmt.Sprintf("s%d", seen) || len(x.Contexts) != 2 {
					t.Fatalf("sample %d is %+v", seen, x)
				}
				seen++
				if seen%(n/8) == 0 {
					runtime.GC()
					runtime.ReadMemStats(&ms)
					peak = max(peak, ms.HeapAlloc)
				}
				return true
			})
			if err != nil || seen != n {
				t.Fatalf("Stream: %v after %d samples", err, seen)
			}
			st, _ := os.Stat(path)
			t.Logf("%d rows, %.1f MB file: live heap %.1f MiB before the stream, at most %.1f MiB during it",
				n, float64(st.Size())/1e6, float64(base)/(1<<20), float64(peak)/(1<<20))
			if peak > base+tc.bound {
				t.Errorf("the live heap grew by %.1f MiB while streaming, over %d MiB", float64(peak-base)/(1<<20), tc.bound>>20)
			}
		})
	}
}
