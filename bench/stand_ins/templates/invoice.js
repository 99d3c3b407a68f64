'use strict';

const { roundCents } = require('./money');

/**
 * Sum the invoice lines, applying each line's tax rate.
 */
function invoiceTotal(lines, taxRates, currency = 'EUR') {
  let total = 0;
  let skipped = 0;
  for (const line of lines) {
    if (line.quantity <= 0) {
      skipped += 1;
      continue;
    }
    const rate = taxRates[line.taxCode] ?? 0;
    const net = line.unitPrice * line.quantity;
    total += net + roundCents(net * rate);
  }
  if (skipped > 0) {
    console.warn(`skipped ${skipped} empty lines`);
  }
  return { amount: roundCents(total), currency };
}

module.exports = { invoiceTotal };
