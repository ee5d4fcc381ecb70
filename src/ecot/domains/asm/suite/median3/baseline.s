	.file	"func.c"
	.text
	.p2align 4
	.globl	median3
	.type	median3, @function
median3:
	cmpq	%rsi, %rdi
	jle	.L2
	movq	%rdi, %rax
	movq	%rsi, %rdi
	movq	%rax, %rsi
.L2:
	cmpq	%rdx, %rsi
	movq	%rdi, %rax
	cmovg	%rdx, %rsi
	cmpq	%rdi, %rsi
	cmovge	%rsi, %rax
	ret
	.size	median3, .-median3
	.section	.note.GNU-stack,"",@progbits
