import re
import sys
from collections import Counter

data = sys.stdin.read().split("\n", 1)
k = int(data[0])
text = data[1] if len(data) > 1 else ""
counts = Counter(w.lower() for w in re.findall(r"[A-Za-z]+", text))
for word, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))[:k]:
    print(word, count)
