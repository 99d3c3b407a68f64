def setup(config):
    load(config)
    check(config)
    start(config)
    return config
