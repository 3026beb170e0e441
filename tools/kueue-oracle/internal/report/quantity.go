package report

import (
	"fmt"
	"strings"
)

// formatQuantity is kadmit's quantity.format_quantity: milli-units as kadmit prints them.
func formatQuantity(milli int64, resource string) string {
	if milli%1000 != 0 {
		return fmt.Sprintf("%dm", milli)
	}
	units := milli / 1000
	if isMemoryLike(resource) && units != 0 {
		for _, b := range binary {
			if units%b.size == 0 {
				return fmt.Sprintf("%d%s", units/b.size, b.suffix)
			}
		}
	}
	return fmt.Sprintf("%d", units)
}

var binary = []struct {
	suffix string
	size   int64
}{{"Ei", 1 << 60}, {"Pi", 1 << 50}, {"Ti", 1 << 40}, {"Gi", 1 << 30}, {"Mi", 1 << 20}, {"Ki", 1 << 10}}

func isMemoryLike(resource string) bool {
	for _, p := range []string{"memory", "ephemeral-storage", "storage", "hugepages-"} {
		if strings.HasPrefix(resource, p) {
			return true
		}
	}
	return false
}
