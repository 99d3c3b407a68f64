package geo

import "math"

// Distance is the Euclidean distance.
func Distance(ax, ay, bx, by float64) float64 {
	dx := ax - bx
	dy := ay - by
	return math.Sqrt(dx*dx + dy*dy)
}

func Sign(x float64) int {
	return int(math.Copysign(1, x))
}
