# Branch-free SWAR population count: constant time instead of one iteration per bit.
	.text
	.globl	popcount64
	.type	popcount64, @function
popcount64:
	movq	%rdi, %rax
	shrq	%rax
	movabsq	$0x5555555555555555, %rdx
	andq	%rdx, %rax
	subq	%rax, %rdi
	movabsq	$0x3333333333333333, %rdx
	movq	%rdi, %rax
	andq	%rdx, %rdi
	shrq	$2, %rax
	andq	%rdx, %rax
	addq	%rdi, %rax
	movq	%rax, %rdx
	shrq	$4, %rdx
	addq	%rdx, %rax
	movabsq	$0x0f0f0f0f0f0f0f0f, %rdx
	andq	%rdx, %rax
	movabsq	$0x0101010101010101, %rdx
	imulq	%rdx, %rax
	shrq	$56, %rax
	ret
	.size	popcount64, .-popcount64
	.section	.note.GNU-stack,"",@progbits
