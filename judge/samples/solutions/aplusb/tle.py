spin = 0
while True:
    spin += 1
