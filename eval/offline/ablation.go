//go:build ablation

package offline

import (
	"os"
	"slices"
	"strings"
)

// Built with the ablation tag, the judge reads RAGSCOPE_OFFLINE_OFF: the
// checks of the support test to turn off, comma-separated, so that
// scripts/ablation.sh can measure what each earns on the calibration.
var turnedOff = strings.Split(os.Getenv("RAGSCOPE_OFFLINE_OFF"), ",")

func off(check string) bool { return slices.Contains(turnedOff, check) }
