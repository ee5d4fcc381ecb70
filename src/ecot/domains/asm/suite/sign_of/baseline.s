	.file	"func.c"
	.text
	.p2align 4
	.globl	sign_of
	.type	sign_of, @function
sign_of:
	xorl	%eax, %eax
	testq	%rdi, %rdi
	movl	$1, %edx
	setne	%al
	negq	%rax
	testq	%rdi, %rdi
	cmovg	%rdx, %rax
	ret
	.size	sign_of, .-sign_of
	.section	.note.GNU-stack,"",@progbits
