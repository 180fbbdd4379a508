package tui

import tea "charm.land/bubbletea/v2"

// workflow routes the replies of the prompt workflow's commands to the
// part of the model that asked.
func (m *Model) workflow(msg workflowMsg) tea.Cmd {
	switch msg.(type) {
	case promptsMsg, editPathMsg, editorDoneMsg, reloadMsg, resetMsg:
		return m.promptsWorkflow(msg)
	case planMsg, rerunStartedMsg:
		return m.rerunWorkflow(msg)
	case runsMsg, runResultsMsg:
		return m.pickerWorkflow(msg)
	case pagerReadyMsg, pagerDoneMsg:
		return m.pagerWorkflow(msg)
	case firstCostMsg, firstStartedMsg:
		return m.firstWorkflow(msg)
	}
	return nil
}
