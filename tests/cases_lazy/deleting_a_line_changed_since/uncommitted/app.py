def setup(config):
    load(config)
    check(config, strict=True)  # changed since
    start(config)
    return config
