	.file	"func.c"
	.text
	.p2align 4
	.globl	count_char
	.type	count_char, @function
count_char:
	movzbl	(%rdi), %eax
	xorl	%edx, %edx
	testb	%al, %al
	je	.L1
	.p2align 4,,10
	.p2align 3
.L3:
	cmpb	%al, %sil
	sete	%al
	addq	$1, %rdi
	movzbl	%al, %eax
	addq	%rax, %rdx
	movzbl	(%rdi), %eax
	testb	%al, %al
	jne	.L3
.L1:
	movq	%rdx, %rax
	ret
	.size	count_char, .-count_char
	.section	.note.GNU-stack,"",@progbits
