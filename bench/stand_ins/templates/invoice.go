package billing

import (
	"log"
	"math"
)

// InvoiceTotal sums the invoice lines, applying each line's tax rate.
func InvoiceTotal(lines []Line, taxRates map[string]float64) float64 {
	total := 0.0
	skipped := 0
	for _, line := range lines {
		if line.Quantity <= 0 {
			skipped++
			continue
		}
		rate := taxRates[line.TaxCode]
		net := line.UnitPrice * float64(line.Quantity)
		total += net + math.Round(net*rate*100)/100
	}
	if skipped > 0 {
		log.Printf("skipped %d empty lines", skipped)
	}
	return math.Round(total*100) / 100
}
