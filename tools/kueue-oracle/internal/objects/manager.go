package objects

import (
	"regexp"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var (
	kueueImage = regexp.MustCompile(`(^|/)kueue(:[^/]*|@.*)?$`)
	gatesFlag  = regexp.MustCompile(`^--?feature-gates(?:=(.*))?$`)
)

// managerFeatureGates is the --feature-gates flag of Kueue's manager that a Deployment runs (a container of
// Kueue's image): of its first such container that gives the flag, the last one given (Go's flag package),
// as kadmit reads it (kadmit.manifests.managerflags). ok is false where no container gives one.
func managerFeatureGates(u *unstructured.Unstructured) (gates string, ok bool) {
	if u.GetAPIVersion() != "apps/v1" || u.GetKind() != "Deployment" {
		return "", false
	}
	containers, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
	for _, c := range containers {
		m, isMap := c.(map[string]interface{})
		if !isMap {
			continue
		}
		if image, _ := m["image"].(string); !kueueImage.MatchString(image) {
			continue
		}
		var words []string
		for _, key := range []string{"command", "args"} {
			list, _ := m[key].([]interface{})
			for _, w := range list {
				s, _ := w.(string)
				words = append(words, s)
			}
		}
		found := false
		for i, w := range words {
			sub := gatesFlag.FindStringSubmatch(w)
			if sub == nil {
				continue
			}
			found = true
			switch {
			case strings.Contains(w, "="):
				gates = sub[1]
			case i+1 < len(words):
				gates = words[i+1]
			default:
				gates = w // no value follows: kadmit reads the flag's own word (a value Kueue cannot parse)
			}
		}
		if found {
			return gates, true
		}
	}
	return "", false
}
