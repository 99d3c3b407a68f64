import { roundCents } from './money';

export interface InvoiceLine {
  quantity: number;
  unitPrice: number;
  taxCode: string;
}

export function invoiceTotal(lines: InvoiceLine[], taxRates: Record<string, number>): number {
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
  return roundCents(total);
}
