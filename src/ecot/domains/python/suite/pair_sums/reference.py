from collections import Counter


def pair_sums(nums, target):
    counts = Counter(nums)
    pairs = []
    for a in sorted(counts):
        b = target - a
        if a < b and b in counts:
            pairs.append((a, b))
        elif a == b and counts[a] > 1:
            pairs.append((a, b))
    return pairs
