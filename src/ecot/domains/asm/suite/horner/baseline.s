	.file	"func.c"
	.text
	.p2align 4
	.globl	horner
	.type	horner, @function
horner:
	xorl	%eax, %eax
	subq	$1, %rsi
	js	.L4
	.p2align 4,,10
	.p2align 3
.L3:
	imulq	%rdx, %rax
	addq	(%rdi,%rsi,8), %rax
	subq	$1, %rsi
	jnb	.L3
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	ret
	.size	horner, .-horner
	.section	.note.GNU-stack,"",@progbits
