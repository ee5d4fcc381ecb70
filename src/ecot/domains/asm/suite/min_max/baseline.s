	.file	"func.c"
	.text
	.p2align 4
	.globl	min_max
	.type	min_max, @function
min_max:
	movq	(%rdi), %r9
	cmpq	$1, %rsi
	jle	.L4
	leaq	8(%rdi), %r8
	leaq	(%rdi,%rsi,8), %rdi
	movq	%r9, %rsi
	.p2align 4,,10
	.p2align 3
.L3:
	movq	(%r8), %rax
	cmpq	%rax, %r9
	cmovg	%rax, %r9
	cmpq	%rax, %rsi
	cmovl	%rax, %rsi
	addq	$8, %r8
	cmpq	%r8, %rdi
	jne	.L3
	movq	%r9, (%rdx)
	movq	%rsi, (%rcx)
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	movq	%r9, %rsi
	movq	%r9, (%rdx)
	movq	%rsi, (%rcx)
	ret
	.size	min_max, .-min_max
	.section	.note.GNU-stack,"",@progbits
