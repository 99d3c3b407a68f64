package shop;

public class Price {
    private final long cents;

    public Price(long cents) {
        this.cents = cents;
    }

    public long cents() {
        return cents;
    }

    public String toString() {
        return cents / 100 + "." + cents % 100;
    }
}
