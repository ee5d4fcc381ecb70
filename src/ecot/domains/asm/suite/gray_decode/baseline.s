	.file	"func.c"
	.text
	.p2align 4
	.globl	gray_decode
	.type	gray_decode, @function
gray_decode:
	xorl	%eax, %eax
	testq	%rdi, %rdi
	je	.L4
	.p2align 4,,10
	.p2align 3
.L3:
	xorq	%rdi, %rax
	shrq	%rdi
	jne	.L3
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	ret
	.size	gray_decode, .-gray_decode
	.section	.note.GNU-stack,"",@progbits
