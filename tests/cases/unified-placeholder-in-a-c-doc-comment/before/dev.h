/**
 * Open a device.
 * Returns a handle, or NULL when the device is busy.
 * The caller closes it with dev_close().
 */
struct dev *dev_open(const char *name);
