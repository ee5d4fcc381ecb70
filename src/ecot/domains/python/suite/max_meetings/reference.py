def max_meetings(meetings):
    count, free_at = 0, None
    for start, end in sorted(meetings, key=lambda m: m[1]):
        if free_at is None or start >= free_at:
            count += 1
            free_at = end
    return count
