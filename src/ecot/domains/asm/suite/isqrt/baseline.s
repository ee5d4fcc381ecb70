	.file	"func.c"
	.text
	.p2align 4
	.globl	isqrt
	.type	isqrt, @function
isqrt:
	movabsq	$4294967296, %rsi
	xorl	%edx, %edx
	jmp	.L3
	.p2align 4,,10
	.p2align 3
.L8:
	cmpq	%rsi, %rdx
	je	.L7
.L3:
	movq	%rdx, %rax
	addq	$1, %rdx
	movq	%rdx, %rcx
	imulq	%rdx, %rcx
	cmpq	%rcx, %rdi
	jnb	.L8
	ret
.L7:
	movl	$4294967295, %eax
	ret
	.size	isqrt, .-isqrt
	.section	.note.GNU-stack,"",@progbits
