	.file	"func.c"
	.text
	.p2align 4
	.globl	gcd
	.type	gcd, @function
gcd:
	movq	%rdi, %rax
	movq	%rsi, %rdx
	testq	%rsi, %rsi
	je	.L4
	.p2align 4,,10
	.p2align 3
.L3:
	movq	%rdx, %rcx
	xorl	%edx, %edx
	divq	%rcx
	movq	%rcx, %rax
	testq	%rdx, %rdx
	jne	.L3
	movq	%rcx, %rax
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	movq	%rdi, %rcx
	movq	%rcx, %rax
	ret
	.size	gcd, .-gcd
	.section	.note.GNU-stack,"",@progbits
