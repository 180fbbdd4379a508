package llm

import (
	"context"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/prompts"
)

// Entities implements eval.Judge (context_entity_recall_entities): the
// entities of one text, trimmed, without empty ones, in the judge's order.
// A reply without the "entities" key is a parse error (retried below the
// cache, never scored); an empty list is an answer (no entity).
func (j *Judge) Entities(ctx context.Context, s *eval.Sample, text string) ([]string, error) {
	req, err := j.request(s, prompts.TaskContextEntityRecallEntities, prompts.Data{Text: text})
	if err != nil {
		return nil, err
	}
	out, _, err := send(ctx, j, req, func(r *entitiesReply) error {
		return checkList("entities", r.Entities, "", nil)
	})
	if err != nil {
		return nil, err
	}
	ents := []string{}
	for _, e := range out.Entities {
		if e = strings.TrimSpace(e); e != "" {
			ents = append(ents, e)
		}
	}
	return ents, nil
}
