	.file	"func.c"
	.text
	.p2align 4
	.globl	sum_squares
	.type	sum_squares, @function
sum_squares:
	testq	%rdi, %rdi
	je	.L4
	xorl	%eax, %eax
	xorl	%edx, %edx
	.p2align 4,,10
	.p2align 3
.L3:
	movq	%rax, %rcx
	imulq	%rax, %rcx
	addq	$1, %rax
	addq	%rcx, %rdx
	cmpq	%rax, %rdi
	jne	.L3
	movq	%rdx, %rax
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	xorl	%edx, %edx
	movq	%rdx, %rax
	ret
	.size	sum_squares, .-sum_squares
	.section	.note.GNU-stack,"",@progbits
