# Closed form (n-1)n(2n-1)/6: the 128-bit product halves exactly, and dividing by 3 is multiplying by its inverse modulo 2^64 because the true value is a multiple of 3.
	.text
	.globl	sum_squares
	.type	sum_squares, @function
sum_squares:
	leaq	-1(%rdi), %rax
	mulq	%rdi
	shrdq	$1, %rdx, %rax
	leaq	-1(%rdi,%rdi), %rcx
	imulq	%rcx, %rax
	movabsq	$0xAAAAAAAAAAAAAAAB, %rcx
	imulq	%rcx, %rax
	ret
	.size	sum_squares, .-sum_squares
	.section	.note.GNU-stack,"",@progbits
