# OTOG "ogogi" checker: python3 interactive_script.py <output file> <problem folder>/ <test number>
# The task: print two different integers whose sum is n. Prints P (pass) or W (fail).
import sys


def main():
    output_path, problem, test = sys.argv[1], sys.argv[2], sys.argv[3]
    with open(problem + test + ".in") as f:
        n = int(f.read().split()[0])
    try:
        with open(output_path) as f:
            x, y = (int(token) for token in f.read().split())
    except Exception:
        print("W")
        return
    print("P" if x != y and x + y == n else "W")


main()
