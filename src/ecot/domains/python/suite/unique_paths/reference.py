def unique_paths(grid):
    if not grid or not grid[0]:
        return 0
    cols = len(grid[0])
    ways = [0] * cols
    ways[0] = 1
    for row in grid:
        for c in range(cols):
            if row[c]:
                ways[c] = 0
            elif c:
                ways[c] += ways[c - 1]
    return ways[-1]
