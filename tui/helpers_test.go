package tui

import (
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// keyMsg builds the key press a terminal would send for a key name as
// bubbletea prints it ("j", "G", "enter", "ctrl+d", ...).
func keyMsg(s string) tea.KeyPressMsg {
	named := map[string]rune{
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "up": tea.KeyUp,
		"down": tea.KeyDown, "home": tea.KeyHome, "end": tea.KeyEnd, "pgdown": tea.KeyPgDown,
		"pgup": tea.KeyPgUp, "backspace": tea.KeyBackspace, "left": tea.KeyLeft, "right": tea.KeyRight,
	}
	if c, ok := named[s]; ok {
		return tea.KeyPressMsg{Code: c}
	}
	if s == "shift+tab" {
		return tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift}
	}
	if rest, ok := strings.CutPrefix(s, "ctrl+"); ok {
		return tea.KeyPressMsg{Code: []rune(rest)[0], Mod: tea.ModCtrl}
	}
	r := []rune(s)[0]
	return tea.KeyPressMsg{Code: r, Text: s}
}

// newTestModel is the fixture run on an 80x24 screen with a frozen clock.
func newTestModel(t testing.TB, opts Options, w, h int) *Model {
	t.Helper()
	m := New(opts)
	m.now = func() time.Time { return fixedStart.Add(90 * time.Second) }
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// press sends keys one by one and returns the command of the last one.
func press(m *Model, keys ...string) tea.Cmd {
	var cmd tea.Cmd
	for _, k := range keys {
		_, cmd = m.Update(keyMsg(k))
	}
	return cmd
}

// typeText types into whatever has the focus, one key per rune.
func typeText(m *Model, s string) {
	for _, r := range s {
		m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func screenText(m *Model) string { return ansi.Strip(m.View().Content) }

// cursorSample is the sample index under the table cursor.
func cursorSample(m *Model) int {
	p, ok := m.cursorRow()
	if !ok {
		return -1
	}
	return m.rows[p].index
}

func shownSamples(m *Model) []int {
	out := make([]int, len(m.shown))
	for i, p := range m.shown {
		out[i] = m.rows[p].index
	}
	return out
}

func isQuit(cmd tea.Cmd) bool {
	if cmd == nil {
		return false
	}
	_, ok := cmd().(tea.QuitMsg)
	return ok
}

// lineOf is the first screen line containing s.
func lineOf(screen, s string) string {
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

func windowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

type execCmd = exec.Cmd

// applyFilter types a filter and applies it, without running the text
// input's cursor blink (a timer command).
func applyFilter(m *Model, f string) {
	if f == "" {
		return
	}
	press(m, "/")
	typeText(m, f)
	press(m, "enter")
}

// flat joins the words of a screen, so a message wrapped over two lines
// is found as one.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

// rowAt is the position of sample index's row, -1 when it has none.
func (m *Model) rowAt(index int) int {
	if p, ok := m.byIndex.get(index); ok {
		return p
	}
	return -1
}
