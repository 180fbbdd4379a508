package offline

import (
	"context"
	"strings"

	"github.com/ragscope/ragscope/eval"
	"github.com/ragscope/ragscope/eval/offline/entity"
	"github.com/ragscope/ragscope/eval/offline/plaintext"
	"golang.org/x/text/unicode/norm"
)

// Entities lists the entities of a text by surface patterns (package
// entity).
func (j *Judge) Entities(ctx context.Context, s *eval.Sample, text string) ([]string, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ExtractEntities(text), nil
}

// ExtractEntities is Entities without a judge: distinct entities in the
// order they occur.
func ExtractEntities(text string) []string {
	// NFKC first: full-width digits and letters are the ASCII ones the
	// patterns know (the entities are reported in that form).
	// Invalid UTF-8 made valid first: the Chinese spans are found over
	// runes and mapped back to byte offsets, which a stray byte (one byte
	// in the text, a three-byte U+FFFD as a rune) would shift (FuzzJudge).
	return entity.Extract(plaintext.StripMarkup(norm.NFKC.String(strings.ToValidUTF8(text, "\uFFFD"))))
}
