def majority(nums):
    candidate, count = None, 0
    for x in nums:
        if count == 0:
            candidate = x
        count += 1 if x == candidate else -1
    if candidate is not None and nums.count(candidate) * 2 > len(nums):
        return candidate
    return None
