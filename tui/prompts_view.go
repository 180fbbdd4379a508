package tui

import (
	"cmp"
	"errors"
	"os/exec"
	"slices"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/internal/sanitize"
	"github.com/ragscope/ragscope/prompts"
)

// promptsView lists the judge templates in use; e edits the selected one.
type promptsView struct {
	pickList // err: why the list could not be shown, or the last edit failed
	list     []prompts.Info
	note     string // the last edit's outcome
	sample   *eval.Result
}

// reload is a reload after an edit, or a reset, with the list it left;
// its error comes beside it.
type reload struct {
	task, lang string
	before     string // sha256 before the edit
	reset      bool
	list       []prompts.Info
}

// noHost is what the workflow keys say when there is nothing to drive.
const noHost = "prompt editing and re-runs need an LLM judge (set OPENAI_BASE_URL); the offline judge uses no prompts"

// openPrompts shows the prompt list, read in a command.
func (m *Model) openPrompts() tea.Cmd {
	h := m.opts.Host
	m.prompts = promptsView{pickList: pickList{loading: true, back: m.screen}, sample: m.currentResult()}
	m.screen = screenPrompts
	m.gen++
	gen, v := m.gen, &m.prompts
	return inCommand(func() ([]prompts.Info, error) { return h.Prompts(), nil }, func(list []prompts.Info, _ error) tea.Cmd {
		if gen == m.gen {
			v.loading = false
			v.setList(list)
		}
		return nil
	})
}

// currentResult is the sample a template is validated against: the one
// open or under the cursor, else the first with a result.
func (m *Model) currentResult() *eval.Result {
	var near []*row
	if m.screen == screenDetail || m.screen == screenRaw {
		near = append(near, m.rows[m.detail.row])
	}
	if p, ok := m.cursorRow(); ok {
		near = append(near, m.rows[p])
	}
	for _, rows := range [][]*row{near, m.rows} {
		for _, r := range rows {
			if res := m.result(r); res != nil {
				return res
			}
		}
	}
	return nil
}

func (m *Model) promptsKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	v := &m.prompts
	if k.moveCursor(msg, &v.cursor, len(v.list)) {
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		m.screen = v.back
	case key.Matches(msg, k.Edit):
		in := v.list[v.cursor]
		h := m.opts.Host
		return inCommand(func() (string, error) { return h.EditPath(in.Task, in.Lang) }, func(path string, err error) tea.Cmd {
			return m.edit(in.Task, in.Lang, path, err)
		})
	case key.Matches(msg, k.ResetPrompt):
		return m.askReset()
	}
	return nil
}

// promptBlocked is why e or d (verb) does nothing now.
func (m *Model) promptBlocked(verb string) string {
	v := &m.prompts
	switch {
	case v.loading:
		return "the prompt list is still loading"
	case v.cursor >= len(v.list):
		return "no prompt to " + verb
	}
	return ""
}

// askReset is d: the reset deletes the user's edit, so it asks first.
func (m *Model) askReset() tea.Cmd {
	in := m.prompts.list[m.prompts.cursor]
	name := sanitize.Line(in.Task + "." + in.Lang)
	q := "Reset " + name + " to the built-in text? Its override file and any kept draft are deleted. [y/n]"
	if in.Source != prompts.SourceOverride {
		q = name + " already uses the built-in text; reset it anyway, deleting a draft of it if one is kept? [y/n]"
	}
	h, task, lang := m.opts.Host, in.Task, in.Lang
	m.askYesNo(&question{text: q, answer: func(yes bool) tea.Cmd {
		if !yes {
			m.setStatus("reset cancelled; " + name + " is unchanged")
			return nil
		}
		return inCommand(func() (reload, error) {
			err := h.ResetPrompt(task, lang)
			return reload{task: task, lang: lang, reset: true, list: h.Prompts()}, err
		}, m.reloaded)
	}})
	return nil
}

// edit opens the template's file at path in the editor, then reloads.
func (m *Model) edit(task, lang, path string, err error) tea.Cmd {
	v := &m.prompts
	if err != nil {
		v.err, v.note = "cannot edit "+task+"."+lang+": "+err.Error(), ""
		return nil
	}
	c, err := m.editor(path)
	if err != nil {
		v.err, v.note = err.Error(), ""
		return nil
	}
	return m.runChild(c, func(edited error) tea.Msg {
		return reply(func() tea.Cmd { return m.reloadAfterEdit(task, lang, edited) })
	})
}

// reloadAfterEdit reloads the prompts in a command, even when the editor
// failed: it may have saved first.
func (m *Model) reloadAfterEdit(task, lang string, edited error) tea.Cmd {
	h, sample, before := m.opts.Host, m.prompts.sample, m.promptHash(task, lang)
	return inCommand(func() (reload, error) {
		err := h.Reload(sample)
		if edited != nil {
			err = errors.Join(errors.New("editor: "+edited.Error()), err)
		}
		return reload{task: task, lang: lang, before: before, list: h.Prompts()}, err
	}, m.reloaded)
}

// reloaded shows what a reload or a reset did.
func (m *Model) reloaded(msg reload, err error) tea.Cmd {
	v := &m.prompts
	v.setList(msg.list)
	name, after := msg.task+"."+msg.lang, m.promptHash(msg.task, msg.lang)
	v.err, v.note = "", "prompt "+name+" unchanged"
	switch {
	case err != nil && msg.reset:
		v.err, v.note = "cannot reset "+name+": "+err.Error(), ""
	case err != nil:
		v.err, v.note = "prompt "+name+" not updated, the previous prompts stay in use:\n"+err.Error(), ""
	case msg.reset:
		v.note = "prompt " + name + " reset to the built-in text (sha256 " + shortHash(after) + m.g.ellipsis + ")"
	case after != msg.before:
		v.note = "prompt " + name + " updated (sha256 " + shortHash(after) + m.g.ellipsis + ")"
	}
	return nil
}

// setList shows the templates the Host listed, the cursor kept in the list.
func (v *promptsView) setList(list []prompts.Info) {
	v.list = list
	v.cursor = min(v.cursor, max(len(list)-1, 0))
}

func (m *Model) promptHash(task, lang string) string {
	if i := slices.IndexFunc(m.prompts.list, func(in prompts.Info) bool { return in.Task == task && in.Lang == lang }); i >= 0 {
		return m.prompts.list[i].SHA256
	}
	return ""
}

func shortHash(h string) string { return h[:min(len(h), 8)] }

// The prompts list's columns; the file gives way first when narrow.
const (
	pcolTask = iota
	pcolLang
	pcolSource
	pcolHash
	pcolFile
)

var promptShrinkOrder = []gridStep{{pcolFile, 12}, {pcolHash, 0}, {pcolFile, 0}, {pcolSource, 0}}

func (m *Model) promptGrid() grid {
	return grid{cols: []gridColumn{
		pcolTask: {title: "task"}, pcolLang: {title: "lang"}, pcolSource: {title: "source"},
		pcolHash: {title: "sha256"}, pcolFile: {title: "file"},
	}, rows: mapped(m.prompts.list, func(in prompts.Info) []string {
		file := cmp.Or(sanitize.Line(in.Path), "(built in; e creates an override)")
		return []string{pcolTask: sanitize.Line(in.Task), pcolLang: sanitize.Line(in.Lang), pcolSource: sanitize.Line(in.Source),
			pcolHash: sanitize.Line(shortHash(in.SHA256)), pcolFile: file}
	})}
}

func (m *Model) renderPrompts() []string {
	st := m.st
	v := &m.prompts
	lines := m.listRows("judge prompts", "e edits, d resets; re-runs use the change", &v.pickList, m.promptGrid(),
		promptShrinkOrder, 3, "reading the templates", "no templates",
		func(i int) bool { return v.list[i].Source == prompts.SourceOverride })
	// The file the user will edit is spelled out in full.
	if v.cursor < len(v.list) && v.list[v.cursor].Path != "" {
		lines = append(lines, m.indented("file: "+v.list[v.cursor].Path, st.muted)...)
	}
	switch {
	case v.err != "":
		lines = append(lines, m.indented(v.err, st.errorLine)...)
	case v.note != "":
		lines = append(lines, st.accent.Render("  "+sanitize.Line(v.note)))
	}
	return m.finish(lines)
}

// execFunc runs an interactive command in the terminal; tests replace it.
type execFunc func(*exec.Cmd, tea.ExecCallback) tea.Cmd

var _ execFunc = tea.ExecProcess
