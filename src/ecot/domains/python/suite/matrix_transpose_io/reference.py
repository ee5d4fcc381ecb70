import sys

data = sys.stdin.read().split()
rows, cols = int(data[0]), int(data[1])
values = data[2:]
for c in range(cols):
    print(" ".join(values[r * cols + c] for r in range(rows)))
