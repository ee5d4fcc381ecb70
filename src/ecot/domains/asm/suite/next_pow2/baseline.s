	.file	"func.c"
	.text
	.p2align 4
	.globl	next_pow2
	.type	next_pow2, @function
next_pow2:
	movl	$1, %eax
	cmpq	$1, %rdi
	jbe	.L1
	.p2align 4,,10
	.p2align 3
.L3:
	addq	%rax, %rax
	je	.L1
	cmpq	%rdi, %rax
	jb	.L3
	ret
	.p2align 4,,10
	.p2align 3
.L1:
	ret
	.size	next_pow2, .-next_pow2
	.section	.note.GNU-stack,"",@progbits
