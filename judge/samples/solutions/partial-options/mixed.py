# Per test: (P%%%%)(P%%-)(P%-) with percents 100 20 40 64 79 | 100 50 25 0 | 100 50 0.
answers = [100, 20, 40, 64, 79, 100, 50, 25, 0, 100, 50, 0]
print(answers[int(input()) - 1])
