	.file	"func.c"
	.text
	.p2align 4
	.globl	argmax
	.type	argmax, @function
argmax:
	cmpq	$1, %rsi
	jle	.L5
	movq	(%rdi), %rcx
	movl	$1, %eax
	xorl	%r8d, %r8d
	.p2align 4,,10
	.p2align 3
.L4:
	movq	(%rdi,%rax,8), %rdx
	cmpq	%rcx, %rdx
	jle	.L3
	movq	%rdx, %rcx
	movq	%rax, %r8
.L3:
	addq	$1, %rax
	cmpq	%rax, %rsi
	jne	.L4
	movq	%r8, %rax
	ret
	.p2align 4,,10
	.p2align 3
.L5:
	xorl	%r8d, %r8d
	movq	%r8, %rax
	ret
	.size	argmax, .-argmax
	.section	.note.GNU-stack,"",@progbits
