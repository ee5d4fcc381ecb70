# bsr finds the highest set bit; a zero input keeps the preloaded -1.
	.text
	.globl	log2_floor
	.type	log2_floor, @function
log2_floor:
	movq	$-1, %rax
	bsrq	%rdi, %rdx
	cmovne	%rdx, %rax
	ret
	.size	log2_floor, .-log2_floor
	.section	.note.GNU-stack,"",@progbits
