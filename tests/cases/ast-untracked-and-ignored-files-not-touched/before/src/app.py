from legacy import fetch

data = fetch("users")
