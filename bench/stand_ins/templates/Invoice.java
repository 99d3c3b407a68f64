package billing;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;

public final class Invoice {
    /** Sum the invoice lines, applying each line's tax rate. */
    public static BigDecimal total(List<Line> lines, Map<String, BigDecimal> taxRates) {
        BigDecimal total = BigDecimal.ZERO;
        int skipped = 0;
        for (Line line : lines) {
            if (line.quantity() <= 0) {
                skipped++;
                continue;
            }
            BigDecimal rate = taxRates.getOrDefault(line.taxCode(), BigDecimal.ZERO);
            BigDecimal net = line.unitPrice().multiply(BigDecimal.valueOf(line.quantity()));
            total = total.add(net).add(net.multiply(rate).setScale(2, RoundingMode.HALF_UP));
        }
        if (skipped > 0) {
            System.err.println("skipped " + skipped + " empty lines");
        }
        return total.setScale(2, RoundingMode.HALF_UP);
    }
}
