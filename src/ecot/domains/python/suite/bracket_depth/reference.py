import sys

for line in sys.stdin.read().split("\n")[:-1]:
    depth = best = 0
    ok = True
    for ch in line:
        depth += 1 if ch == "(" else -1
        if depth < 0:
            ok = False
            break
        best = max(best, depth)
    print(best if ok and depth == 0 else "invalid")
