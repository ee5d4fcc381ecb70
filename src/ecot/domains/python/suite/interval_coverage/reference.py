import sys

data = sys.stdin.buffer.read().split()
n = int(data[0])
intervals = sorted((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n))
total = 0
cur_start = cur_end = None
for a, b in intervals:
    if cur_end is None or a > cur_end + 1:
        if cur_end is not None:
            total += cur_end - cur_start + 1
        cur_start, cur_end = a, b
    else:
        cur_end = max(cur_end, b)
if cur_end is not None:
    total += cur_end - cur_start + 1
print(total)
