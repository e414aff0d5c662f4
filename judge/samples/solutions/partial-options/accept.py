input()
print(100)
