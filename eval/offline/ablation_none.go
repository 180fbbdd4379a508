//go:build !ablation

package offline

// off reports whether a check of the support test is turned off: never,
// but in a build with the ablation tag (ablation.go).
func off(string) bool { return false }
