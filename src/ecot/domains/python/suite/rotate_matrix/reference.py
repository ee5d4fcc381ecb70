def rotate(matrix):
    n = len(matrix)
    return [[matrix[n - 1 - r][c] for r in range(n)] for c in range(n)]
