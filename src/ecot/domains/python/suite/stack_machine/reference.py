import sys

stack = []
for line in sys.stdin:
    parts = line.split()
    if not parts:
        continue
    op = parts[0]
    need = {"push": 0, "pop": 1, "add": 2, "mul": 2, "dup": 1, "swap": 2, "print": 1}[op]
    if len(stack) < need:
        print("error")
        break
    if op == "push":
        stack.append(int(parts[1]))
    elif op == "pop":
        stack.pop()
    elif op == "add":
        b, a = stack.pop(), stack.pop()
        stack.append(a + b)
    elif op == "mul":
        b, a = stack.pop(), stack.pop()
        stack.append(a * b)
    elif op == "dup":
        stack.append(stack[-1])
    elif op == "swap":
        stack[-1], stack[-2] = stack[-2], stack[-1]
    else:
        print(stack[-1])
