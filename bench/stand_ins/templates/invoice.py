"""Invoice totals for the billing export."""

from __future__ import annotations

import logging
from decimal import Decimal

log = logging.getLogger(__name__)


def invoice_total(lines, tax_rates, currency="EUR"):
    """Sum the invoice lines, applying each line's tax rate."""
    total = Decimal("0")
    skipped = 0
    for line in lines:
        if line.quantity <= 0:
            skipped += 1
            continue
        rate = tax_rates.get(line.tax_code, Decimal("0"))
        net = line.unit_price * line.quantity
        total += net + (net * rate).quantize(Decimal("0.01"))
    if skipped:
        log.warning("skipped %d empty lines", skipped)
    return total.quantize(Decimal("0.01")), currency


def format_total(amount, currency):
    return f"{amount:,.2f} {currency}"
