from collections import Counter

assert pair_sums([1, 2, 3, 4], 5) == [(1, 4), (2, 3)]
assert pair_sums([], 3) == []
assert pair_sums([2, 2, 2], 4) == [(2, 2)]
assert pair_sums([3], 6) == []
assert pair_sums([-1, 7, 3, 1, 5, 7], 6) == [(-1, 7), (1, 5)]
assert pair_sums([104729, 1299709, 15485863, 104729], 1404438) == [(104729, 1299709)]
numbers = [(i * 7919 * 104729) % 999983 - 500000 for i in range(100000)]
target = numbers[17] + numbers[60000]
found = pair_sums(numbers, target)
counts = Counter(numbers)
assert len(found) == len(set(found)) == sum(1 for a in counts if a <= target - a and counts[target - a] > (a == target - a))
assert all(a + b == target and a <= b and counts[a] and counts[b] for a, b in found) and found == sorted(found)
