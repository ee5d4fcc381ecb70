	.file	"func.c"
	.text
	.p2align 4
	.globl	log2_floor
	.type	log2_floor, @function
log2_floor:
	movq	$-1, %rax
	testq	%rdi, %rdi
	je	.L4
	.p2align 4,,10
	.p2align 3
.L3:
	addq	$1, %rax
	shrq	%rdi
	jne	.L3
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	ret
	.size	log2_floor, .-log2_floor
	.section	.note.GNU-stack,"",@progbits
