# The whole loop is one bswap instruction.
	.text
	.globl	bswap_loop
	.type	bswap_loop, @function
bswap_loop:
	movq	%rdi, %rax
	bswapq	%rax
	ret
	.size	bswap_loop, .-bswap_loop
	.section	.note.GNU-stack,"",@progbits
