#include <math.h>
#include <stdio.h>

#include "billing.h"

/* Sum the invoice lines, applying each line's tax rate. */
double invoice_total(const struct line *lines, size_t n, const struct tax_table *rates)
{
    double total = 0.0;
    int skipped = 0;
    for (size_t i = 0; i < n; i++) {
        if (lines[i].quantity <= 0) {
            skipped++;
            continue;
        }
        double rate = tax_rate(rates, lines[i].tax_code);
        double net = lines[i].unit_price * lines[i].quantity;
        total += net + round(net * rate * 100.0) / 100.0;
    }
    if (skipped > 0)
        fprintf(stderr, "skipped %d empty lines\n", skipped);
    return round(total * 100.0) / 100.0;
}
