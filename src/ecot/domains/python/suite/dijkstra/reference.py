import heapq
import sys

data = sys.stdin.buffer.read().split()
n, m, s = int(data[0]), int(data[1]), int(data[2])
adj = [[] for _ in range(n + 1)]
for i in range(m):
    u, v, w = int(data[3 + 3 * i]), int(data[4 + 3 * i]), int(data[5 + 3 * i])
    adj[u].append((v, w))
    adj[v].append((u, w))
dist = [-1] * (n + 1)
heap = [(0, s)]
while heap:
    d, u = heapq.heappop(heap)
    if dist[u] != -1:
        continue
    dist[u] = d
    for v, w in adj[u]:
        if dist[v] == -1:
            heapq.heappush(heap, (d + w, v))
print(" ".join(map(str, dist[1:])))
