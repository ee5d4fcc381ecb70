def two_sum(nums, target):
    first = {}
    for j, x in enumerate(nums):
        i = first.get(target - x)
        if i is not None:
            return [i, j]
        first.setdefault(x, j)
    return []
