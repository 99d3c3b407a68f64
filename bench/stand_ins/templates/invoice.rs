use std::collections::HashMap;

use log::warn;

/// Sum the invoice lines, applying each line's tax rate.
pub fn invoice_total(lines: &[Line], tax_rates: &HashMap<String, f64>) -> f64 {
    let mut total = 0.0;
    let mut skipped = 0;
    for line in lines {
        if line.quantity == 0 {
            skipped += 1;
            continue;
        }
        let rate = tax_rates.get(&line.tax_code).copied().unwrap_or(0.0);
        let net = line.unit_price * line.quantity as f64;
        total += net + round_cents(net * rate);
    }
    if skipped > 0 {
        warn!("skipped {} empty lines", skipped);
    }
    round_cents(total)
}

fn round_cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
