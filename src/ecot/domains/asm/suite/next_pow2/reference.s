# bsr of x-1 gives the exponent directly; a shift count of 64 means the answer overflowed.
	.text
	.globl	next_pow2
	.type	next_pow2, @function
next_pow2:
	movl	$1, %eax
	cmpq	$1, %rdi
	jbe	.Ldone
	leaq	-1(%rdi), %rcx
	bsrq	%rcx, %rcx
	addl	$1, %ecx
	xorl	%edx, %edx
	shlq	%cl, %rax
	cmpl	$64, %ecx
	cmove	%rdx, %rax
.Ldone:
	ret
	.size	next_pow2, .-next_pow2
	.section	.note.GNU-stack,"",@progbits
