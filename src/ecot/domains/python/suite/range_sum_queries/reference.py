import sys

data = sys.stdin.buffer.read().split()
n, q = int(data[0]), int(data[1])
prefix = [0]
for x in data[2:2 + n]:
    prefix.append(prefix[-1] + int(x))
out = []
base = 2 + n
for i in range(q):
    l, r = int(data[base + 2 * i]), int(data[base + 2 * i + 1])
    out.append(prefix[r] - prefix[l - 1])
print("\n".join(map(str, out)))
