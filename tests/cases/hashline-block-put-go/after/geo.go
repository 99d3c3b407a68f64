package geo

import "math"

// Distance is the length between two points.
func Distance(ax, ay, bx, by float64) float64 {
	return math.Hypot(ax-bx, ay-by)
}

func Sign(x float64) int {
	if x < 0 {
		return -1
	} else {
		return 1
	}
}
