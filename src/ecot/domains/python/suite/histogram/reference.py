n = int(input())
values = list(map(int, input().split())) if n else []
counts = [0] * 10
for v in values:
    counts[v] += 1
for v in range(10):
    if counts[v]:
        print(f"{v}: " + "*" * counts[v])
