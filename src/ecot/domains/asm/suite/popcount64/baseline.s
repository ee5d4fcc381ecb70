	.file	"func.c"
	.text
	.p2align 4
	.globl	popcount64
	.type	popcount64, @function
popcount64:
	xorl	%eax, %eax
	testq	%rdi, %rdi
	je	.L4
	.p2align 4,,10
	.p2align 3
.L3:
	movq	%rdi, %rdx
	andl	$1, %edx
	addq	%rdx, %rax
	shrq	%rdi
	jne	.L3
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	ret
	.size	popcount64, .-popcount64
	.section	.note.GNU-stack,"",@progbits
