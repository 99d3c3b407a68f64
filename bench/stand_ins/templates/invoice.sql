-- Invoice totals per customer for the monthly export.
CREATE VIEW invoice_totals AS
SELECT
    c.id AS customer_id,
    c.name AS customer_name,
    i.id AS invoice_id,
    i.issued_on,
    SUM(l.unit_price * l.quantity) AS net,
    SUM(ROUND(l.unit_price * l.quantity * t.rate, 2)) AS tax,
    SUM(l.unit_price * l.quantity * (1 + t.rate)) AS gross,
    COUNT(l.id) AS line_count
FROM invoices i
JOIN customers c ON c.id = i.customer_id
JOIN invoice_lines l ON l.invoice_id = i.id
JOIN tax_rates t ON t.code = l.tax_code
WHERE l.quantity > 0
GROUP BY c.id, c.name, i.id, i.issued_on;
