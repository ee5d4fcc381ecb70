# bsf finds the lowest set bit in one instruction; a zero input keeps the preloaded 64.
	.text
	.globl	ctz64
	.type	ctz64, @function
ctz64:
	movl	$64, %eax
	bsfq	%rdi, %rdx
	cmovne	%rdx, %rax
	ret
	.size	ctz64, .-ctz64
	.section	.note.GNU-stack,"",@progbits
