import heapq
import sys

data = sys.stdin.buffer.read().split()
n, m = int(data[0]), int(data[1])
after = [[] for _ in range(n + 1)]
indeg = [0] * (n + 1)
for i in range(m):
    a, b = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    after[a].append(b)
    indeg[b] += 1
ready = [v for v in range(1, n + 1) if indeg[v] == 0]
heapq.heapify(ready)
order = []
while ready:
    v = heapq.heappop(ready)
    order.append(v)
    for w in after[v]:
        indeg[w] -= 1
        if indeg[w] == 0:
            heapq.heappush(ready, w)
print(" ".join(map(str, order)) if len(order) == n else "IMPOSSIBLE")
