public class Cache {
    /**
     * Returns the cached value.
     */
    public Object get(String key) {
        return map.get(key);
    }
}
