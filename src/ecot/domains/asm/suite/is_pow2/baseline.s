	.file	"func.c"
	.text
	.p2align 4
	.globl	is_pow2
	.type	is_pow2, @function
is_pow2:
	xorl	%eax, %eax
	testq	%rdi, %rdi
	jne	.L9
	jmp	.L1
	.p2align 4,,10
	.p2align 3
.L4:
	shrq	%rdi
.L9:
	testb	$1, %dil
	je	.L4
	xorl	%eax, %eax
	cmpq	$1, %rdi
	sete	%al
.L1:
	ret
	.size	is_pow2, .-is_pow2
	.section	.note.GNU-stack,"",@progbits
