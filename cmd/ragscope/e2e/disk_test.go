package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/fakejudge"
)

// A full disk, for real: a small tmpfs in a private mount namespace (root
// only). The first result that cannot be stored stops the run, loudly;
// everything stored before it survives; the report is complete or absent;
// once space is freed, --resume completes the run.
func TestFullDiskStopsTheRun(t *testing.T) {
	needBinary(t)
	if os.Getuid() != 0 {
		t.Skip("needs root to mount a tmpfs in a private mount namespace")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare is not on PATH")
	}
	const samples = 60
	srv := fakejudge.New(fakejudge.Generic)
	defer srv.Close()
	after := fakejudge.New(fakejudge.Generic) // the judge of the resumed run
	defer after.Close()
	data := smallDataset(t, samples)
	host := t.TempDir() // outside the tmpfs: what the script leaves for the test
	mnt := filepath.Join(t.TempDir(), "mnt")
	if err := os.Mkdir(mnt, 0o755); err != nil {
		t.Fatal(err)
	}
	// The filler leaves room for the database's first pages and a few
	// results and cache entries; removing it frees the disk.
	script := fmt.Sprintf(`set -u
mount -t tmpfs -o size=8m tmpfs %[1]s || exit 99
dd if=/dev/zero of=%[1]s/filler bs=1k count=7400 2>/dev/null
"%[2]s" run --headless --concurrency 2 --metrics faithfulness,context_precision,context_recall --db %[1]s/r.db --out %[1]s/report.json %[3]s >%[4]s/out1 2>%[4]s/err1
echo $? >%[4]s/code1
ls -la %[1]s >%[4]s/ls1
test -e %[1]s/report.json && cp %[1]s/report.json %[4]s/report1.json
"%[2]s" runs --db %[1]s/r.db >%[4]s/runs1 2>&1
"%[2]s" report latest --db %[1]s/r.db >%[4]s/stored.json 2>&1
rm %[1]s/filler
OPENAI_BASE_URL=%[5]s "%[2]s" run --headless --resume latest --concurrency 2 --metrics faithfulness,context_precision,context_recall --db %[1]s/r.db >%[4]s/out2 2>%[4]s/err2
echo $? >%[4]s/code2
`, mnt, binary, data, host, after.BaseURL())
	cmd := exec.Command("unshare", "-m", "sh", "-c", script)
	cmd.Env = cleanEnv(t, "OPENAI_API_KEY=k", "OPENAI_BASE_URL="+srv.BaseURL())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the mount namespace script failed: %v\n%s", err, out)
	}
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(host, name))
		return string(b)
	}
	if code := strings.TrimSpace(read("code1")); code != "1" {
		t.Fatalf("on a full disk: exit %s, want 1\nstderr:\n%s", code, read("err1"))
	}
	stderr := read("err1")
	if !strings.Contains(stderr, "the run stopped") || !strings.Contains(stderr, "no space left on device") || !strings.Contains(stderr, "--resume") {
		t.Fatalf("stderr does not say the run stopped for lack of space and how to continue:\n%s", stderr)
	}
	// The run stopped at the first failure: the judge saw the calls of the
	// samples stored and of those in flight (4 sample workers at
	// --concurrency 2), not the rest of the dataset.
	stored := len(decodeReport(t, read("stored.json")).Samples)
	calls := srv.Count("")
	if stored == 0 || stored == samples || calls > 5*(stored+4+1) {
		t.Fatalf("the judge saw %d calls for %d stored samples: the run went on after the disk was full\nstderr:\n%s", calls, stored, stderr)
	}
	if _, err := os.Stat(filepath.Join(host, "report1.json")); err == nil {
		rep := decodeReport(t, read("report1.json"))
		if len(rep.Samples) != samples {
			t.Fatalf("a partial report was left: %d samples", len(rep.Samples))
		}
	}
	if strings.Contains(read("ls1"), ".tmp-") {
		t.Fatalf("a temporary report file was left behind:\n%s", read("ls1"))
	}
	if runs := read("runs1"); !strings.Contains(runs, "cancelled") && !strings.Contains(runs, "interrupted") {
		t.Fatalf("the stopped run is not listed as interrupted:\n%s", runs)
	}
	if code := strings.TrimSpace(read("code2")); code != "0" {
		t.Fatalf("--resume once space was freed: exit %s\n%s", code, read("err2"))
	}
	rep := decodeReport(t, read("out2"))
	if len(rep.Samples) != samples || rep.Summary[eval.Faithfulness].Scored != samples {
		t.Fatalf("the resumed run: %d samples, %+v", len(rep.Samples), rep.Summary[eval.Faithfulness])
	}
	t.Logf("full disk: %d samples stored, the judge saw %d calls before the run stopped (5 a sample); resumed to %d samples", stored, calls, len(rep.Samples))
}

// Reports and exports hold the evaluated answers, contexts and prompts:
// they are created owner-only, and a failed write leaves nothing.
func TestOutputFilesAreOwnerOnly(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	db := filepath.Join(dir, "r.db")
	env := cleanEnv(t)
	out := filepath.Join(dir, "run.json")
	if r := runBin(t, env, "run", "--headless", "--db", db, "--out", out, repoFile("testdata/demo.jsonl")); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	files := []string{out, filepath.Join(dir, "report.md"), filepath.Join(dir, "cache.jsonl"), filepath.Join(dir, "prompts", "faithfulness_verdicts.en.tmpl")}
	for _, args := range [][]string{
		{"report", "latest", "--db", db, "--format", "md", "--out", files[1]},
		{"cache", "export", "--db", db, files[2]},
		{"prompts", "export", filepath.Dir(files[3])},
	} {
		if r := runBin(t, env, args...); r.code != 0 {
			t.Fatalf("%v: %d %s", args, r.code, r.stderr)
		}
	}
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want 0600", filepath.Base(f), fi.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
