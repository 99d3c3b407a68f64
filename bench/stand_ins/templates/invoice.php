<?php

namespace Billing;

/**
 * Sum the invoice lines, applying each line's tax rate.
 */
function invoice_total(array $lines, array $taxRates): float
{
    $total = 0.0;
    $skipped = 0;
    foreach ($lines as $line) {
        if ($line->quantity <= 0) {
            $skipped++;
            continue;
        }
        $rate = $taxRates[$line->taxCode] ?? 0.0;
        $net = $line->unitPrice * $line->quantity;
        $total += $net + round($net * $rate, 2);
    }
    if ($skipped > 0) {
        error_log("skipped $skipped empty lines");
    }
    return round($total, 2);
}
