package geo

import "math"

// Distance is the length between two points.
func Distance(ax, ay, bx, by float64) float64 {
	dx := ax - bx
	dy := ay - by
	return math.Sqrt(dx*dx + dy*dy)
}

func Sign(x float64) int {
	if x < 0 {
		return -1
	} else {
		return 1
	}
}
