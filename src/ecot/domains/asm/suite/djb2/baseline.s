	.file	"func.c"
	.text
	.p2align 4
	.globl	djb2
	.type	djb2, @function
djb2:
	movzbl	(%rdi), %edx
	movl	$5381, %eax
	testb	%dl, %dl
	je	.L4
	.p2align 4,,10
	.p2align 3
.L3:
	movq	%rax, %rcx
	addq	$1, %rdi
	salq	$5, %rcx
	addq	%rcx, %rax
	addq	%rdx, %rax
	movzbl	(%rdi), %edx
	testb	%dl, %dl
	jne	.L3
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	ret
	.size	djb2, .-djb2
	.section	.note.GNU-stack,"",@progbits
