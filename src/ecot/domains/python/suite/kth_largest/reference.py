import heapq


def kth_largest(nums, k):
    return heapq.nlargest(k, nums)[-1]
