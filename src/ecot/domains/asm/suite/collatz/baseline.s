	.file	"func.c"
	.text
	.p2align 4
	.globl	collatz
	.type	collatz, @function
collatz:
	xorl	%eax, %eax
	cmpq	$1, %rdi
	je	.L6
	.p2align 4,,10
	.p2align 3
.L5:
	testb	$1, %dil
	je	.L3
	leaq	1(%rdi,%rdi,2), %rdi
	addq	$1, %rax
	cmpq	$1, %rdi
	jne	.L5
	ret
	.p2align 4,,10
	.p2align 3
.L3:
	shrq	%rdi
	addq	$1, %rax
	cmpq	$1, %rdi
	jne	.L5
	ret
	.p2align 4,,10
	.p2align 3
.L6:
	ret
	.size	collatz, .-collatz
	.section	.note.GNU-stack,"",@progbits
