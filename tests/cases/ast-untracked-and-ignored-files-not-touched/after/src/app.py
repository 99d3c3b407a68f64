from legacy import fetch

data = fetch("users", timeout=10)
