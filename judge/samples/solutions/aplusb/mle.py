# Touches 128 MiB (16M pointers): over a 32 MB limit.
a, b = map(int, input().split())
block = [a] * (16 * 1024 * 1024)
print(a + b + block[-1] - a)
