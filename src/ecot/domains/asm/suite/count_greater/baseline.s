	.file	"func.c"
	.text
	.p2align 4
	.globl	count_greater
	.type	count_greater, @function
count_greater:
	testq	%rsi, %rsi
	jle	.L5
	leaq	(%rdi,%rsi,8), %rsi
	xorl	%eax, %eax
	.p2align 4,,10
	.p2align 3
.L4:
	xorl	%ecx, %ecx
	cmpq	(%rdi), %rdx
	setl	%cl
	addq	$8, %rdi
	addq	%rcx, %rax
	cmpq	%rsi, %rdi
	jne	.L4
	ret
	.p2align 4,,10
	.p2align 3
.L5:
	xorl	%eax, %eax
	ret
	.size	count_greater, .-count_greater
	.section	.note.GNU-stack,"",@progbits
