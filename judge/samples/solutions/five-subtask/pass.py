print("P")
