# Prefix xor in six doubling steps instead of one step per bit.
	.text
	.globl	gray_decode
	.type	gray_decode, @function
gray_decode:
	movq	%rdi, %rax
	shrq	%rax
	xorq	%rax, %rdi
	movq	%rdi, %rax
	shrq	$2, %rax
	xorq	%rax, %rdi
	movq	%rdi, %rax
	shrq	$4, %rax
	xorq	%rax, %rdi
	movq	%rdi, %rax
	shrq	$8, %rax
	xorq	%rax, %rdi
	movq	%rdi, %rax
	shrq	$16, %rax
	xorq	%rax, %rdi
	movq	%rdi, %rax
	shrq	$32, %rax
	xorq	%rdi, %rax
	ret
	.size	gray_decode, .-gray_decode
	.section	.note.GNU-stack,"",@progbits
