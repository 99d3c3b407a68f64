package billing

// Total sums the invoice lines, applying each line's tax rate.
func Total(lines []Line, rates map[string]float64) float64 {
	total := 0.0
	for _, line := range lines {
		if line.Quantity <= 0 {
			continue
		}
		rate := rates[line.TaxCode]
		total += line.Price * float64(line.Quantity) * (1 + rate)
	}
	return total
}
