	.file	"func.c"
	.text
	.p2align 4
	.globl	dot_product
	.type	dot_product, @function
dot_product:
	testq	%rdx, %rdx
	jle	.L4
	xorl	%eax, %eax
	xorl	%r8d, %r8d
	.p2align 4,,10
	.p2align 3
.L3:
	movslq	(%rdi,%rax,4), %rcx
	movslq	(%rsi,%rax,4), %r9
	addq	$1, %rax
	imulq	%r9, %rcx
	addq	%rcx, %r8
	cmpq	%rax, %rdx
	jne	.L3
	movq	%r8, %rax
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	xorl	%r8d, %r8d
	movq	%r8, %rax
	ret
	.size	dot_product, .-dot_product
	.section	.note.GNU-stack,"",@progbits
