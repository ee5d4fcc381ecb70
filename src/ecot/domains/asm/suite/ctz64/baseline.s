	.file	"func.c"
	.text
	.p2align 4
	.globl	ctz64
	.type	ctz64, @function
ctz64:
	movl	$64, %eax
	testq	%rdi, %rdi
	je	.L1
	xorl	%eax, %eax
	testb	$1, %dil
	jne	.L1
	.p2align 4,,10
	.p2align 3
.L3:
	shrq	%rdi
	addq	$1, %rax
	testb	$1, %dil
	je	.L3
	ret
	.p2align 4,,10
	.p2align 3
.L1:
	ret
	.size	ctz64, .-ctz64
	.section	.note.GNU-stack,"",@progbits
