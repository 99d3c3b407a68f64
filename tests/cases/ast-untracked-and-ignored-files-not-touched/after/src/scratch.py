data = fetch("scratch")
