package prompts

import "encoding/json"

// The reply contracts as strict JSON schemas (every property required, no
// others allowed), in the form OpenAI-compatible structured outputs accept.
// Written out by hand rather than marshalled from maps because property
// order matters: models fill properties in schema order, and the reason
// must come before the verdict it justifies.
var schemas = map[string]string{
	TaskFaithfulnessStatements: `{"type":"object","properties":{"statements":{"type":"array","items":{"type":"string"}}},"required":["statements"],"additionalProperties":false}`,
	TaskFaithfulnessVerdicts: `{"type":"object","properties":{"statements":{"type":"array","items":{"type":"object","properties":{` +
		`"statement":{"type":"string"},` + evidenceProperties + `,"reason":{"type":"string"},"verdict":{"type":"integer","enum":[0,1]}},` +
		`"required":["statement","chunk","quote","reason","verdict"],"additionalProperties":false}}},"required":["statements"],"additionalProperties":false}`,
	TaskAnswerRelevancyQuestion: `{"type":"object","properties":{"question":{"type":"string"},"noncommittal":{"type":"integer","enum":[0,1]}},` +
		`"required":["question","noncommittal"],"additionalProperties":false}`,
	TaskContextPrecisionVerdict: chunkVerdictSchema,
	// The same reply as context precision's: only the prompt differs.
	TaskContextUtilizationVerdict: chunkVerdictSchema,
	TaskContextRecallClassifications: `{"type":"object","properties":{"classifications":{"type":"array","items":{"type":"object","properties":{` +
		`"statement":{"type":"string"},` + evidenceProperties + `,"reason":{"type":"string"},"attributed":{"type":"integer","enum":[0,1]}},` +
		`"required":["statement","chunk","quote","reason","attributed"],"additionalProperties":false}}},"required":["classifications"],"additionalProperties":false}`,
	TaskAnswerCorrectnessClassifications: `{"type":"object","properties":{"TP":` + correctnessList + `,"FP":` + correctnessList + `,"FN":` + correctnessList +
		`},"required":["TP","FP","FN"],"additionalProperties":false}`,
	TaskContextEntityRecallEntities: `{"type":"object","properties":{"entities":{"type":"array","items":{"type":"string"}}},"required":["entities"],"additionalProperties":false}`,
	// One verdict per numbered statement, reason before verdict; no
	// evidence keys: the premise is one text, so there is no chunk to cite.
	TaskEntailmentVerdicts: `{"type":"object","properties":{"verdicts":{"type":"array","items":{"type":"object","properties":{` +
		`"statement":{"type":"string"},"reason":{"type":"string"},"verdict":{"type":"integer","enum":[0,1]}},` +
		`"required":["statement","reason","verdict"],"additionalProperties":false}}},"required":["verdicts"],"additionalProperties":false}`,
	// A team's own criteria: the quote that decided comes first, then the
	// reason, then the verdict or level. A rubric's level is checked against
	// its scale after parsing: the scale is the criterion's, not the task's.
	TaskCriterionYesNo: `{"type":"object","properties":{"quote":{"type":"string"},"reason":{"type":"string"},"verdict":{"type":"integer","enum":[0,1]}},` +
		`"required":["quote","reason","verdict"],"additionalProperties":false}`,
	TaskCriterionRubric: `{"type":"object","properties":{"quote":{"type":"string"},"reason":{"type":"string"},"level":{"type":"integer"}},` +
		`"required":["quote","reason","level"],"additionalProperties":false}`,
	TaskCriterionChecklist: `{"type":"object","properties":{"items":{"type":"array","items":{"type":"object","properties":{` +
		`"item":{"type":"string"},"quote":{"type":"string"},"reason":{"type":"string"},"verdict":{"type":"integer","enum":[0,1]}},` +
		`"required":["item","quote","reason","verdict"],"additionalProperties":false}}},"required":["items"],"additionalProperties":false}`,
	TaskConversationStandalone: `{"type":"object","properties":{"question":{"type":"string"}},"required":["question"],"additionalProperties":false}`,
	// The reason first, then where the statement is backed (source and
	// the turn) and the earlier answer it contradicts; null: none.
	TaskConversationHistoryVerdict: `{"type":"object","properties":{"statements":{"type":"array","items":{"type":"object","properties":{` +
		`"statement":{"type":"string"},"reason":{"type":"string"},"source":{"type":"string","enum":["chunks","user","none"]},` +
		`"turn":{"type":["integer","null"]},"contradicts":{"type":["integer","null"]}},` +
		`"required":["statement","reason","source","turn","contradicts"],"additionalProperties":false}}},"required":["statements"],"additionalProperties":false}`,
}

const correctnessList = `{"type":"array","items":{"type":"object","properties":{"statement":{"type":"string"},"reason":{"type":"string"}},` +
	`"required":["statement","reason"],"additionalProperties":false}}`

const chunkVerdictSchema = `{"type":"object","properties":{"reason":{"type":"string"},"verdict":{"type":"integer","enum":[0,1]}},` +
	`"required":["reason","verdict"],"additionalProperties":false}`

// ContractVersion is the version of the reply contract. 2 added the
// evidence of faithfulness verdicts and context-recall classifications
// (chunk, quote). A changed schema is part of every json_schema request and
// a changed prompt of every request, so their cache keys change with it;
// a reply cached under an unchanged key (an override of the old text with
// json_object) has no evidence and is read as "no evidence given".
const ContractVersion = 2

// evidenceProperties come before the reason, so that a model fills them
// first: it finds the passage, then argues from it. Strict mode wants every
// property required; "none" is null, not a missing key.
const evidenceProperties = `"chunk":{"type":["integer","null"]},"quote":{"type":"string"}`

// Schema returns the strict JSON schema of the reply to task.
func Schema(task string) (json.RawMessage, error) {
	if err := CheckTaskLang(task, allLangs[0]); err != nil {
		return nil, err
	}
	return json.RawMessage(schemas[task]), nil
}
