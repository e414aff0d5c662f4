a, b = map(int, input().split())
None.add(a, b)  # AttributeError: exit status 1
