def legacy():
    return None
