package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/report"
	"github.com/ragscope/ragscope/internal/sanitize"
)

// alertRule is one --alert: the rolling mean of a metric over its last N
// scores, against a threshold.
type alertRule struct {
	st   report.AlertState
	ring []float64
	next int
	sum  float64
}

// alerts are the watcher's rules; observe and states may be called from
// any goroutine.
type alerts struct {
	mu    sync.Mutex
	rules []*alertRule
}

var alertRE = regexp.MustCompile(`^\s*([A-Za-z0-9_]+)\s*([<>])\s*([0-9]*\.?[0-9]+)\s+over\s+([0-9]+)\s*$`)

// parseAlerts reads rules like "faithfulness<0.7 over 50" (or '>'); the
// metric must be one the watcher evaluates.
func parseAlerts(specs []string, metrics []eval.Metric) (*alerts, error) {
	a := &alerts{}
	for _, spec := range specs {
		m := alertRE.FindStringSubmatch(spec)
		if m == nil {
			return nil, fmt.Errorf("--alert %q: write METRIC<X over N or METRIC>X over N, e.g. --alert 'faithfulness<0.7 over 50'", spec)
		}
		metric, ok := eval.LookupMetric(m[1])
		if c := eval.Metric(m[1]); !ok && eval.Def(c) == nil && slices.Contains(metrics, c) {
			metric, ok = c, true // a criterion
		}
		if !ok {
			names := make([]string, len(metrics))
			for i, mm := range metrics {
				names[i] = string(mm)
			}
			return nil, fmt.Errorf("--alert %q: %q is neither a metric nor a criterion of the run (it evaluates %s)", spec, m[1], strings.Join(names, ", "))
		}
		if !slices.Contains(metrics, metric) {
			return nil, fmt.Errorf("--alert %q: %s is not among the metrics evaluated (--metrics)", spec, metric)
		}
		x, _ := strconv.ParseFloat(m[3], 64)
		n, err := strconv.Atoi(m[4])
		if err != nil || n < 1 || n > 1_000_000 {
			return nil, fmt.Errorf("--alert %q: N must be from 1 to 1000000 scored samples", spec)
		}
		a.rules = append(a.rules, &alertRule{
			st:   report.AlertState{Rule: strings.TrimSpace(spec), Metric: metric, Below: m[2] == "<", Threshold: x, Window: n},
			ring: make([]float64, n),
		})
	}
	return a, nil
}

// alertEvent is a rule's crossing into breach: what --alert-exec reads
// on stdin, as JSON.
type alertEvent struct {
	Rule      string    `json:"rule"`
	Metric    string    `json:"metric"`
	Op        string    `json:"op"`
	Threshold float64   `json:"threshold"`
	Window    int       `json:"window"`
	Mean      float64   `json:"mean"`
	Count     int       `json:"count"`
	Fired     int       `json:"fired"`
	RunID     string    `json:"run_id"`
	Sample    int       `json:"sample"`
	Time      time.Time `json:"time"`
}

// observe adds a result's scores; it returns the rules that crossed into
// breach with it. A rule fires only once its window is full (a mean of
// three scores is noise), and once per crossing: it re-arms when the mean
// leaves the breach.
func (a *alerts) observe(res *eval.Result) []alertEvent {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []alertEvent
	for _, r := range a.rules {
		p := res.Scores[r.st.Metric]
		if p == nil || res.Status[r.st.Metric] != eval.StatusOK {
			continue
		}
		if r.st.Count == r.st.Window {
			r.sum -= r.ring[r.next]
		} else {
			r.st.Count++
		}
		r.ring[r.next] = *p
		r.sum += *p
		r.next = (r.next + 1) % r.st.Window
		mean := r.sum / float64(r.st.Count)
		r.st.Mean = &mean
		breach := r.st.Count == r.st.Window && ((r.st.Below && mean < r.st.Threshold) || (!r.st.Below && mean > r.st.Threshold))
		switch {
		case breach && !r.st.Firing:
			r.st.Firing, r.st.Since = true, time.Now()
			r.st.Fired++
			op := ">"
			if r.st.Below {
				op = "<"
			}
			out = append(out, alertEvent{Rule: r.st.Rule, Metric: string(r.st.Metric), Op: op, Threshold: r.st.Threshold,
				Window: r.st.Window, Mean: mean, Count: r.st.Count, Fired: r.st.Fired, Sample: res.Index, Time: r.st.Since.UTC()})
		case !breach && r.st.Firing:
			r.st.Firing, r.st.Since = false, time.Time{}
		}
	}
	return out
}

func (a *alerts) states() []report.AlertState {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make([]report.AlertState, len(a.rules))
	for i, r := range a.rules {
		out[i] = r.st // Mean is shared: observe points it at a new value, never writes through it
	}
	return out
}

// maxAlertExecs bounds the --alert-exec commands running at once: a
// command that hangs must not pile up processes.
const maxAlertExecs = 4

var alertExecs = make(chan struct{}, maxAlertExecs)

// waitAlertExecs waits for the --alert-exec commands still running, each
// at most --alert-timeout: a watcher that stops (--once, above all, from
// cron) would otherwise end before the alert of its last records reached
// anyone, its stdin unwritten.
func (f *Watcher) waitAlertExecs() {
	if len(alertExecs) > 0 {
		fmt.Fprintf(f.stderr, "ragscope watch: waiting for --alert-exec to finish (at most %s)\n", f.fc.AlertTimeout)
	}
	f.execs.Wait()
}

// fire writes the alert line on stderr and starts --alert-exec with the
// details on stdin. The command runs beside the evaluation, never in its
// way: it is killed after the timeout, and skipped (saying so) when
// maxAlertExecs are still running.
func (f *Watcher) fire(ev alertEvent, runID string, index int) {
	ev.RunID, ev.Sample = runID, index
	fmt.Fprintf(f.stderr, "ragscope watch: ALERT %s: rolling mean %.3f over the last %d scored samples (run %s, up to sample %d)\n",
		sanitize.Line(ev.Rule), ev.Mean, ev.Count, runID, index)
	if f.fc.AlertExec == "" {
		return
	}
	body, _ := json.Marshal(ev)
	select {
	case alertExecs <- struct{}{}:
	default:
		f.warn(fmt.Sprintf("--alert-exec: %d commands still running; not started for this alert", maxAlertExecs))
		return
	}
	f.execs.Add(1)
	go func() {
		defer f.execs.Done()
		defer func() { <-alertExecs }()
		ctx, cancel := context.WithTimeout(context.Background(), f.fc.AlertTimeout)
		defer cancel()
		// Through sh -c: the command is the operator's own (a pipe to
		// mail, a curl to a webhook); nothing from the data is ever put in
		// it, the details go on stdin only.
		cmd := exec.CommandContext(ctx, "/bin/sh", "-c", f.fc.AlertExec)
		cmd.Env = alertEnv(os.Environ())
		cmd.Stdin = bytes.NewReader(append(body, '\n'))
		cmd.Stdout, cmd.Stderr = f.stderr, f.stderr
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Cancel = func() error {
			// The whole group: sh and what it started.
			return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		cmd.WaitDelay = time.Second
		if err := cmd.Run(); err != nil {
			why := err.Error()
			if ctx.Err() != nil {
				why = fmt.Sprintf("killed after %s", f.fc.AlertTimeout)
			}
			f.warn(fmt.Sprintf("--alert-exec %q for %s: %s", f.fc.AlertExec, ev.Rule, why))
		}
	}()
}

// alertKeep are the variables an --alert-exec command gets from the
// watcher's environment: what a shell, mail or curl needs to run. Nothing
// else (OPENAI_API_KEY above all) is passed, but RAGSCOPE_ALERT_*, the way
// to give the command a setting of its own.
var alertKeep = map[string]bool{
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "SHELL": true, "HOSTNAME": true,
	"LANG": true, "LANGUAGE": true, "TZ": true, "TMPDIR": true, "TERM": true,
	"HTTP_PROXY": true, "HTTPS_PROXY": true, "NO_PROXY": true, "ALL_PROXY": true,
	"SSL_CERT_FILE": true, "SSL_CERT_DIR": true,
}

// alertEnv keeps of env ("NAME=value" entries) what alertKeep allows, the
// locale's LC_* and the RAGSCOPE_ALERT_* variables.
func alertEnv(env []string) []string {
	out := []string{}
	for _, kv := range env {
		name, _, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		up := strings.ToUpper(name)
		if alertKeep[up] && (strings.HasSuffix(up, "_PROXY") || up == name) || strings.HasPrefix(name, "LC_") || strings.HasPrefix(name, "RAGSCOPE_ALERT_") {
			out = append(out, kv)
		}
	}
	return out
}
