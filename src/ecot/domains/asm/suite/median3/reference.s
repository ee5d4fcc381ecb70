# max(min(a, b), min(max(a, b), c)) with four cmovs and no branches.
	.text
	.globl	median3
	.type	median3, @function
median3:
	movq	%rdi, %rax
	cmpq	%rsi, %rdi
	cmovg	%rsi, %rax
	cmovl	%rsi, %rdi
	cmpq	%rdx, %rdi
	cmovg	%rdx, %rdi
	cmpq	%rdi, %rax
	cmovl	%rdi, %rax
	ret
	.size	median3, .-median3
	.section	.note.GNU-stack,"",@progbits
