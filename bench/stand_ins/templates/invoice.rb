# frozen_string_literal: true

require 'bigdecimal'

module Billing
  # Sum the invoice lines, applying each line's tax rate.
  def self.invoice_total(lines, tax_rates, currency: 'EUR')
    total = BigDecimal('0')
    skipped = 0
    lines.each do |line|
      if line.quantity <= 0
        skipped += 1
        next
      end
      rate = tax_rates.fetch(line.tax_code, BigDecimal('0'))
      net = line.unit_price * line.quantity
      total += net + (net * rate).round(2)
    end
    warn "skipped #{skipped} empty lines" if skipped.positive?
    [total.round(2), currency]
  end
end
