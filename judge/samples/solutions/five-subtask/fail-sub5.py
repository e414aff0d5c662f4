# Wrong on case 2 of subtask 5 (non-group, min).
subtask, index = map(int, input().split())
print("W" if subtask == 5 and index == 2 else "P")
